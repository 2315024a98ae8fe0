# SPDX-License-Identifier: MIT
"""Creates and opens the wallet "kdewallet" of a fresh kwalletd5 without a
dialog, for scripts/with-kwallet.sh.

kwalletd5's pamOpen(wallet, hash, timeout) creates a missing wallet from a
password hash instead of asking: the hash is the PBKDF2-HMAC-SHA512 of the
password (here the empty one) with the 56 random bytes kwalletd reads from
kdewallet.salt beside the wallet, 50,000 rounds, 56 bytes. Needs Debian's
python3-dbus.
"""

import hashlib
import os

import dbus

wallets = os.path.join(os.environ["XDG_DATA_HOME"], "kwalletd")
os.makedirs(wallets, exist_ok=True)
salt = os.urandom(56)
with open(os.path.join(wallets, "kdewallet.salt"), "wb") as salt_file:
    salt_file.write(salt)
password_hash = hashlib.pbkdf2_hmac("sha512", b"", salt, 50000, 56)
kwallet = dbus.Interface(
    dbus.SessionBus().get_object("org.kde.kwalletd5", "/modules/kwalletd5"), "org.kde.KWallet")
kwallet.pamOpen("kdewallet", dbus.ByteArray(password_hash), 0)
if "kdewallet" not in kwallet.wallets():
    raise SystemExit("open_wallet.py: kwalletd5 did not create the wallet")
