/* SPDX-License-Identifier: MIT */
/*
 * kt_secret_service.h — direct access to the private Secret Service for
 * the tests, bypassing KeychainKit: lock and unlock the collection of the
 * default alias, count and create items over D-Bus (GIO), and run
 * secret-tool.
 *
 * Only for tests under scripts/with-secret-service.sh (gnome-keyring),
 * scripts/with-kwallet.sh or scripts/with-keepassxc.sh (which set
 * KEYCHAINKIT_TEST_SERVER to kwallet or keepassxc): they change the
 * keyring's state. Every function returns 0 on success and
 * -1 on failure, after printing why.
 */
#ifndef KT_SECRET_SERVICE_H
#define KT_SECRET_SERVICE_H

#include <stddef.h>
#include <sys/types.h>

/** Whether the runner's server is the hostile fake
 *  (scripts/with-fake-secret-service.sh: KEYCHAINKIT_TEST_SERVER "fake" or
 *  "fake-PERSONALITY"). */
int kt_server_is_fake(void);

/** Whether the runner's server hides a locked collection's items from
 *  searches (KeePassXC, and the fake as oo7 or keepassxc-idle), so that
 *  absence cannot be told while locked. */
int kt_server_hides_locked_items(void);

/** Whether the runner's server sends its DH public key unpadded, so that
 *  libsecret's exchange fails about once in 256 sessions (KWallet 5.103,
 *  the fake as ksecretd). */
int kt_server_pads_no_key(void);

/** Turns on the fake's mode `name` (with `argument`, "" for none), or off
 *  when `argument` is NULL, through its control object. */
int kt_fake_set_mode(const char *name, const char *argument);

/** Locks the collection of the default alias with
 *  org.freedesktop.Secret.Service.Lock (and its prompt, on KeePassXC), and
 *  waits until it says so. */
int kt_ss_lock(void);

/** Unlocks it without a dialog, and waits until it says so:
 *  gnome-keyring's UnlockWithMasterPassword and
 *  $KEYCHAINKIT_TEST_KEYRING_PASSWORD; on KWallet and the fake, Unlock and
 *  its prompt (the test wallet's password is empty); on KeePassXC, its own
 *  openDatabase method with the test database's password. */
int kt_ss_unlock(void);

/** kt_ss_lock() in a test: checks that it worked and the collection says
 *  so; 1 when it did. */
int kt_lock_checked(void);

/** kt_ss_unlock() in a test, checked likewise; 1 when it worked. */
int kt_unlock_checked(void);

/** Sets *locked to that collection's Locked property. */
int kt_ss_is_locked(int *locked);

/** Puts gnome-keyring in the state most machines meet it in after a login
 *  that did not unlock it (SSH, autologin) or a crash: SIGKILLs the daemon
 *  that owns org.freedesktop.secrets, waits until the name has no owner,
 *  and has the bus activate a fresh daemon, which loads the keyring from
 *  disk locked. The fake does the same on its RestartLocked (it leaves the
 *  bus and comes back under a new name, its collections locked as loaded
 *  from disk). KeePassXC and KWallet, which the bus does not activate,
 *  are started again by $KEYCHAINKIT_TEST_SERVER_START, on their database
 *  or wallet without its password, as a login starts them (after what a
 *  logout does: KeePassXC's lockAllDatabases, KWallet's closeAllWallets,
 *  which write what they hold). Waits until
 *  the collection of the default alias says it is locked. Later calls
 *  here use a session on the new daemon. */
int kt_ss_restart_locked(void);

/** Sets *pid to the process ID of the process that owns
 *  org.freedesktop.secrets (the bus daemon's answer). */
int kt_ss_owner_pid(unsigned *pid);

/** Sets *number to N of the path ".../N" of the one unlocked item of
 *  service=`service`, username=`account` (gnome-keyring and the fake
 *  number a collection's items). */
int kt_ss_item_number(const char *service, const char *account, unsigned *number);

/** Puts another server in the place of the running one, as when a user
 *  switches from gnome-keyring or KWallet to another Secret Service: stops
 *  the daemon that owns org.freedesktop.secrets as kt_ss_restart_locked()
 *  does and starts the hostile fake ($KEYCHAINKIT_TEST_FAKE_COMMAND, which
 *  IntegrationTests/c/run.sh sets), with the old default collection's name
 *  and numbering its items from `first_item`, so the old server's item
 *  paths name the new server's items. Waits until it owns the name; *pid
 *  is its process, for kt_ss_end_fake(). Later calls here use the fake. */
int kt_ss_replace_with_fake(unsigned first_item, pid_t *pid);

/** Ends that fake and starts the harness's server again as
 *  kt_ss_restart_locked() does (its keyring loaded locked); then unlocks it
 *  (kt_ss_unlock()). */
int kt_ss_end_fake(pid_t pid);

/** Sets *hashed to whether the items of service=`service`,
 *  username=`account` show their attributes only hashed (gnome-keyring's
 *  gkr:compat:hashed:service, for a keyring loaded locked) and *count to
 *  how many there are. */
int kt_ss_items_hashed(const char *service, const char *account, int *hashed, int *count);

/** Sets *count to the number of items (locked or not) whose attributes
 *  include service=`service` and username=`account`. */
int kt_ss_count_items(const char *service, const char *account, int *count);

/** Creates a new item with those attributes and `value` in the collection
 *  of the default alias, never replacing one (so duplicates can be made),
 *  completing the confirmation prompt KeePassXC asks for. */
int kt_ss_create_item(const char *service, const char *account, const char *label,
                      const char *value);

/** What Python keyring's SecretService backend (keyring 25.7, secretstorage 3.5)
 *  does for set_password(service, account, value): CreateItem with the
 *  attributes service, username and application="Python keyring library"
 *  (no xdg:schema), the label "Password for 'U' on 'S'", and replace=true,
 *  which replaces only an item carrying all three attributes. So beside an
 *  item of ours (which has no "application") it adds a second one. Uses
 *  this process's GIO connection: in a test that forks children which
 *  call it, call no kt_ss_ function before the last fork. */
int kt_keyring_set_password(const char *service, const char *account, const char *value);

/** `secret-tool store --label=LABEL service S username U` with `value` on
 *  its standard input. */
int kt_secret_tool_store(const char *service, const char *account, const char *label,
                         const char *value);

/** `secret-tool clear service S username U`. */
int kt_secret_tool_clear(const char *service, const char *account);

/** `secret-tool lookup service S username U`: its output (at most size-1
 *  bytes, NUL-terminated) into `out`. */
int kt_secret_tool_lookup(const char *service, const char *account, char *out, size_t size);

#endif /* KT_SECRET_SERVICE_H */
