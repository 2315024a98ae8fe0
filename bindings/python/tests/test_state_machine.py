"""Random set/get/remove/observe sequences against a dict model, on both backends;
the listing (accounts(), len()) matches the model's keys after every step."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple, Union

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from keychainkit import ChangeEvent, Observation, Status
from support import ANY_SIZE, open_keychain, unique_service

ACCOUNTS = st.sampled_from(["a", "b", "ünï", "with space"])


def values_for(backend: str) -> st.SearchStrategy[Union[str, bytes]]:
    """Short values, empty ones where the backend stores them."""
    least = 0 if backend in ANY_SIZE else 1
    return st.one_of(st.text(min_size=least, max_size=16), st.binary(min_size=least, max_size=16))


SETTINGS = {
    "memory": settings(max_examples=60, stateful_step_count=30, deadline=None),
    "secret_service": settings(
        max_examples=15, stateful_step_count=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    ),
    "kernel": settings(max_examples=60, stateful_step_count=30, deadline=None),
}


def as_text(data: Optional[bytes]) -> Optional[str]:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def machine_for(backend: str) -> type:
    class KeychainMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.kc = open_keychain(backend, unique_service())
            self.model: Dict[str, bytes] = {}
            self.observations: Dict[str, Observation] = {}
            self.seen: List[Tuple[str, str, int]] = []
            self.expected: List[Tuple[str, str, int]] = []

        def notify(self, kind: str, account: str) -> None:
            if account in self.observations:
                self.expected.append((kind, account, Status.OK))

        @rule(account=ACCOUNTS, value=values_for(backend))
        def set(self, account: str, value: Union[str, bytes]) -> None:
            self.kc[account] = value
            self.model[account] = value.encode("utf-8") if isinstance(value, str) else value
            self.notify("set", account)

        @rule(account=ACCOUNTS)
        def remove(self, account: str) -> None:
            self.kc.remove_value(account)
            self.model.pop(account, None)
            self.notify("remove", account)

        @rule(account=ACCOUNTS)
        def delete(self, account: str) -> None:
            if account in self.model:
                del self.kc[account]
                del self.model[account]
                self.notify("remove", account)
            else:
                with pytest.raises(KeyError):
                    del self.kc[account]

        @rule(account=ACCOUNTS)
        def read(self, account: str) -> None:
            stored = self.model.get(account)
            text = as_text(stored)
            assert self.kc.value_bytes(account) == stored
            assert self.kc.value(account) == text
            assert (account in self.kc) == (account in self.model)  # presence, whatever the value
            assert self.kc.get(account, 0) == (0 if text is None else text)
            if text is None:
                with pytest.raises(KeyError):
                    self.kc[account]
            else:
                assert self.kc[account] == text

        @rule(account=ACCOUNTS)
        def observe(self, account: str) -> None:
            if account not in self.observations:
                self.observations[account] = self.kc.observe(account, self.record)

        @rule(account=ACCOUNTS)
        def unobserve(self, account: str) -> None:
            observation = self.observations.pop(account, None)
            if observation is not None:
                observation.cancel()

        def record(self, event: ChangeEvent) -> None:
            self.seen.append((event.kind, event.account, event.status))

        @invariant()
        def events_match_the_model(self) -> None:
            assert self.seen == self.expected

        @invariant()
        def listing_matches_the_model(self) -> None:
            assert self.kc.accounts() == sorted(self.model, key=lambda account: account.encode("utf-8"))
            assert len(self.kc) == len(self.model)

        def teardown(self) -> None:
            self.kc.close()

    return KeychainMachine


def test_keychain_behaves_like_its_model(backend: str) -> None:
    run_state_machine_as_test(machine_for(backend), settings=SETTINGS[backend])
