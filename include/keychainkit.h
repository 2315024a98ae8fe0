/* SPDX-License-Identifier: MIT */
/*
 * keychainkit.h — the C interface of KeychainKit.
 *
 * KeychainKit stores small secrets (tokens, passwords, keys) in the Linux
 * system keychain: the freedesktop Secret Service (gnome-keyring, KWallet,
 * KeePassXC); the kernel keyring, on machines with no Secret Service
 * (servers, containers, SSH and CI sessions), when chosen explicitly; or an
 * in-memory keychain for tests.
 *
 *     kk_keychain *kc;
 *     if (kk_open_secret_service(&kc) != KK_OK) { ... kk_error_message() ... }
 *     kk_set(kc, "my-app", "token", "s3cret", 6);
 *     char *value; size_t len;
 *     kk_status st = kk_get(kc, "my-app", "token", &value, &len);
 *     if (st == KK_OK) { use(value, len); kk_secret_free(value); }
 *     else if (st == KK_ENOTFOUND) { ... absent ... }
 *     else if (st == KK_ELOCKED) { ... present or not, cannot read now ... }
 *     kk_close(kc);
 *
 * Conventions
 * - Every function that can fail returns a kk_status: KK_OK (0) or a
 *   negative error. On failure, kk_error_message() describes it for the
 *   calling thread. Status values never change; new ones are only appended.
 * - Out-parameters come first among outputs and are written only on success
 *   (kk_get also sets *out_value to NULL on failure).
 * - Strings are NUL-terminated UTF-8. A key is (service, account); a NULL
 *   service means the default service, the program's name (argv[0]'s last
 *   path component). Services must be non-empty valid UTF-8; accounts must
 *   be valid UTF-8 and may be empty (since 0.5): "" is an ordinary account,
 *   stored as the attribute username="" exactly as Python keyring,
 *   secret-tool and libsecret store it, so each finds the other's item.
 *   "Bad strings" below means a service or account that breaks these rules.
 * - Secrets returned by the library are released with kk_secret_free(), which
 *   wipes them first. Never pass them to free().
 * - A handle may be used from many threads at once; operations through one
 *   handle are serialized by the handle's lock, which is never held while an
 *   observer callback runs.
 * - No function blocks without bound: with no Secret Service, calls fail
 *   with KK_EUNAVAILABLE at once (the message names the kernel keyring,
 *   kk_open_kernel_keyring(), as the alternative); every request to the service has a
 *   timeout (KK_DEFAULT_TIMEOUT_MS, 5 seconds, unless the handle's options say otherwise); a
 *   prompt is waited for at most the prompt timeout (KK_DEFAULT_PROMPT_TIMEOUT_MS, 2 minutes, unless the
 *   options say otherwise).
 * - File handles (kk_open_file()): any operation reads the file again when
 *   another program changed it, so any may return what the open does when
 *   the new file is wrong (KK_EWRONGKEY: another master's file was put in
 *   its place; KK_ECORRUPT; KK_EDENIED) and changes nothing. A write waits
 *   at most lock_timeout_ms for another process's write, else KK_EUNKNOWN
 *   (EWOULDBLOCK) with nothing stored; it is made again on a version that
 *   a program taking no lock (libsecret) wrote meanwhile.
 * - Locked is never absent: an item in a locked collection is KK_ELOCKED.
 *   A search that finds nothing proves a key absent only when no locked
 *   collection hides its items (KeePassXC hides every item of a locked
 *   database; gnome-keyring and KWallet list them): otherwise kk_get,
 *   kk_exists, kk_remove and kk_list return KK_ELOCKED too, and
 *   kk_error_message() names the collections. A keyring gnome-keyring
 *   loaded from disk without its password (after an SSH or automatic
 *   login, or a restart of the daemon) shows its locked items' attributes
 *   only as hashes: an item whose hashes match the key's is that key's
 *   locked item (never absent, never another key's), and kk_list and
 *   kk_server_login_accounts, which cannot name what such items hold,
 *   return KK_ELOCKED.
 * - KeePassXC's automatic save (on by default) crashes it when a change
 *   arrives while it saves, and nothing tells a client when it does. On
 *   KeePassXC (told by its process name), changes therefore go in bursts
 *   of at most 50 ms, and a change after a burst waits until that burst's
 *   save has surely ended: 450 ms and more as the database grows, and
 *   while KeePassXC holds the file it saves to open (seen in
 *   /proc/PID/fd), at most 5 s (RELIABILITY.md). Reads never wait for it.
 * - Prompts: the service may answer an operation with a prompt. A
 *   confirmation (KeePassXC asks for one at every create and delete; with
 *   its confirmations off it completes at once, with no dialog) is always
 *   completed. An unlock prompt (the collection is locked) is shown only
 *   when the handle's prompt policy allows (see kk_prompt_policy; by default
 *   only in a graphical session): the calling thread then waits for the
 *   user, at most the prompt timeout, holding the handle's lock. The user
 *   dismissing it gives KK_ECANCELED; no answer in time gives KK_ELOCKED
 *   (and the prompt is dismissed, except on gnome-keyring, whose daemon
 *   crashes when a shown unlock dialog is dismissed: there the dialog
 *   stays up until the user answers it).
 * - Freshness: a read (kk_get, kk_exists) that starts after another
 *   process's or handle's write (create, update or remove) was acknowledged
 *   sees that write, present and absent answers alike. What the library
 *   remembers of where items are is kept current from the service's change
 *   signals; a remembered absence is confirmed by one round trip to the
 *   D-Bus daemon before it is answered.
 * - Transport: the library speaks D-Bus itself (sd-bus, from libsystemd).
 *   Its only thread is a handle's delivery thread, while the handle has
 *   observers (kk_observe()), with a connection of its own; operations run
 *   on the caller's thread. Secrets cross the bus encrypted (the Secret
 *   Service's dh-ietf1024-sha256-aes128-cbc-pkcs7 session, on libgcrypt),
 *   in plain only with a service that offers nothing else.
 * - fork(): a child process may use handles it inherited and open new ones;
 *   the child never uses its parent's D-Bus connection (it opens its own on
 *   its first call), and the parent is unaffected. A handle's lock that
 *   another thread of the parent held at the moment of fork() is released
 *   in the child. Observers registered in the parent stay registered on the
 *   inherited handle and are called for the child's own writes through it.
 *   An operation another parent thread was in the middle of at fork() does
 *   not happen in the child.
 * - One item per key: a key has at most one item once its writers are
 *   done, also when several threads, handles and processes write it at
 *   once, or race other tools (secret-tool, libsecret). A write that finds
 *   several items of its key (duplicates another tool left behind) stores
 *   its value in one and removes the others, so every tool then reads that
 *   value. Items in a locked collection are left alone. Python keyring's
 *   set_password adds an item of its own beside an existing one (its
 *   replace matches only items carrying its "application" attribute); the
 *   next kk_set makes them one again, and until then kk_get reads the most
 *   recently modified.
 * - Secret memory: values the library returns (kk_get, kk_get_many,
 *   kk_server_login_get) live in memory excluded from core dumps
 *   (MADV_DONTDUMP) and locked out of swap where RLIMIT_MEMLOCK allows,
 *   and are wiped by kk_secret_free(), which aborts on a pointer it did not
 *   hand out or one freed twice. Its own copies (decrypted buffers, D-Bus
 *   messages carrying secrets, which sd-bus marks sensitive) are wiped
 *   before release, and those calls overwrite the stack they used (32 KiB)
 *   and, on x86-64, the vector registers before returning. A file handle
 *   keeps its decrypted items' secrets, the master secret and the file's
 *   key in the same memory while open; the copies a read, a write, a seal
 *   or an open makes on the way are ordinary memory, wiped after. Not
 *   covered: an in-memory handle's values, and a Secret Service session's
 *   expanded AES key (libgcrypt's), are ordinary memory; the caller's
 *   buffers passed to kk_set() are the caller's to wipe.
 *
 * Link with `pkg-config --cflags --libs keychainkit`.
 */
#ifndef KEYCHAINKIT_H
#define KEYCHAINKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the library's exported functions. */
#if defined(__GNUC__) || defined(__clang__)
#  define KK_API __attribute__((visibility("default")))
#else
#  define KK_API
#endif

/* ------------------------------------------------------------------------ */
/* Versions                                                                  */
/* ------------------------------------------------------------------------ */

/** The version of this header. */
#define KK_VERSION_MAJOR 0
#define KK_VERSION_MINOR 9
#define KK_VERSION_PATCH 0

/** The version of this header as one number: MAJOR*10000 + MINOR*100 + PATCH. */
#define KK_VERSION_NUMBER (KK_VERSION_MAJOR * 10000 + KK_VERSION_MINOR * 100 + KK_VERSION_PATCH)

/** The version of the loaded library as one number, comparable with
 *  KK_VERSION_NUMBER. Thread-safe. */
KK_API int kk_version_number(void);

/** The version of the loaded library as "MAJOR.MINOR.PATCH". Static text:
 *  never NULL, never freed. Thread-safe. */
KK_API const char *kk_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */

/** The outcome of a call. Values are stable: never renumbered, only appended. */
typedef enum kk_status {
    /** Success. */
    KK_OK = 0,
    /** No item exists for the key. */
    KK_ENOTFOUND = -1,
    /** An item already exists for the key. */
    KK_EDUPLICATE = -2,
    /** The keychain is locked and may not prompt to unlock. The item may well
     *  exist: this is never "absent". Retry after the user unlocks it. */
    KK_ELOCKED = -3,
    /** Access was refused by policy (sandbox, AccessDenied). */
    KK_EDENIED = -4,
    /** No session bus, or no Secret Service provider on it (or it did not
     *  answer in time); for a kernel keyring handle, the kernel keyring is
     *  forbidden (a seccomp filter) or missing. */
    KK_EUNAVAILABLE = -5,
    /** The user dismissed a prompt. */
    KK_ECANCELED = -6,
    /** A bad argument: a NULL pointer, an empty service, a string that is
     *  not valid UTF-8, a value larger than KK_MAX_VALUE_SIZE, an
     *  unknown observer token. */
    KK_EINVAL = -7,
    /** Out of memory. */
    KK_ENOMEM = -8,
    /** Any other failure; kk_error_message() has the backend's error. */
    KK_EUNKNOWN = -9,
    /** The master secret does not open the keyring file of a file handle
     *  (kk_open_file()): none of its items verifies under it — a mistyped
     *  secret, or another program's file. Never "absent"; nothing was
     *  written. Since 0.7. */
    KK_EWRONGKEY = -10,
    /** A file handle has no master secret: the source named yields none
     *  (kk_error_message() says which sources there are). Nothing was
     *  written. Since 0.7. */
    KK_ENOKEY = -11,
    /** The keyring file is damaged, not a keyring file, of a version not
     *  read, or has key parameters too weak to trust or too costly to derive (kk_error_message()
     *  says which). The file is left as it is. Since 0.7. */
    KK_ECORRUPT = -12
} kk_status;

/** A short English description of `status` ("no item exists for the key",
 *  ...): the words of the Swift core's KeychainError and of the CLI.
 *  Static text: never NULL (unknown values give "unknown status"), never
 *  freed. Thread-safe. */
KK_API const char *kk_status_string(kk_status status);

/** A description of the calling thread's last failure, with its detail (for
 *  example the D-Bus error), or "" when this thread has had none. Never NULL;
 *  never contains a secret. Valid until the calling thread's next kk_ call;
 *  not freed by the caller. */
KK_API const char *kk_error_message(void);

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

/** A keychain handle. Opaque; created by a kk_open_* function, released
 *  with kk_close(). */
typedef struct kk_keychain kk_keychain;

/** The largest value kk_set() accepts, in bytes (16 MiB). */
#define KK_MAX_VALUE_SIZE ((size_t)16 * 1024 * 1024)

/** Opens a handle on the user's Secret Service with the default options
 *  (see kk_open_secret_service_with()); new items go to its default
 *  collection. Connecting is deferred to the first operation, so this call
 *  succeeds without a session bus; operations then return KK_EUNAVAILABLE.
 *  On success *out owns a handle to release with kk_close().
 *  Returns KK_OK, KK_EINVAL (out is NULL) or KK_ENOMEM. Thread-safe.
 *
 *  What a Secret Service handle trusts (since 0.7): the bus daemon and the
 *  process that owns org.freedesktop.secrets now, not other bus peers nor
 *  the content of answers. A secret is returned, overwritten or deleted
 *  only for an item whose attributes the library read and compared byte
 *  for byte with the key; items a loosely matching service answers with
 *  are ignored (never deleted) and counted in kk_error_message(), also
 *  after a KK_ENOTFOUND. Object paths outside /org/freedesktop/secrets, replies
 *  of the wrong type and a search for one key answered with more than 256
 *  items are KK_EUNKNOWN ("a server fault"). Change signals count only
 *  from the service's owner; file descriptors in messages are refused. A
 *  call that gets no answer in time is KK_EUNAVAILABLE, and
 *  kk_error_message() names the call, the service and the time waited. */
KK_API kk_status kk_open_secret_service(kk_keychain **out);

/** Opens the user's keychain where libsecret would keep it: inside a
 *  Flatpak or Snap sandbox (/.flatpak-info, or $SNAP_NAME set) whose Secret
 *  portal answers with version 1, the app's own file keyed by the portal —
 *  what kk_open_file() opens with KK_MASTER_PORTAL and no path, libsecret's
 *  $XDG_DATA_HOME/keyrings/default.keyring there, which the app's
 *  libsecret-using libraries share; everywhere else (and in a sandbox with
 *  no portal) what kk_open_secret_service() opens. A sandbox's own bus
 *  usually lets it reach only the portal (Flatpak's filtered bus), where a
 *  Secret Service handle would be KK_EUNAVAILABLE.
 *
 *  Outside a sandbox it asks no bus and cannot fail but for KK_EINVAL and
 *  KK_ENOMEM; inside, asking the portal is bounded by
 *  KK_DEFAULT_TIMEOUT_MS per call (no answer: the Secret Service), and the
 *  open then returns what kk_open_file() does (KK_ENOKEY when the portal
 *  gives no secret, KK_ECANCELED when the user refused, KK_EWRONGKEY, ...).
 *  kk_backend_of() tells which store it opened. On
 *  success *out owns a handle to release with kk_close(). Thread-safe.
 *  Since 0.8. */
KK_API kk_status kk_open_default(kk_keychain **out);

/** Whether a Secret Service handle may show the service's unlock prompt.
 *  Since 0.5. */
typedef enum kk_prompt_policy {
    /** KK_PROMPT_ALLOWED when the process has a graphical session to show
     *  a dialog on (WAYLAND_DISPLAY or DISPLAY is set, when the handle is
     *  opened), else KK_PROMPT_NEVER. The default. */
    KK_PROMPT_AUTOMATIC = 0,
    /** Never show an unlock prompt: an operation that needs a locked
     *  collection returns KK_ELOCKED at once. */
    KK_PROMPT_NEVER = 1,
    /** Show the service's unlock prompt when an operation needs a locked
     *  collection, and wait for the user up to the prompt timeout. */
    KK_PROMPT_ALLOWED = 2
} kk_prompt_policy;

/** Whether secrets may cross the session bus unencrypted. Since 0.7. */
typedef enum kk_transfer_policy {
    /** Encrypted (dh-ietf1024-sha256-aes128-cbc-pkcs7: a Diffie-Hellman
     *  exchange, then AES-128-CBC), and plain only where the service offers
     *  nothing else, as libsecret does: the default. gnome-keyring, KWallet
     *  and KeePassXC all offer encryption; a plain fallback is never
     *  silent: kk_transfer_encrypted() tells, and kk_error_message() says
     *  so after an operation that has no other detail to give. */
    KK_TRANSFER_PREFER_ENCRYPTED = 0,
    /** Encrypted only: with a service that offers only plain transfer,
     *  every operation returns KK_EDENIED, and kk_error_message() says why.
     *  Plain secrets can be read by any process of the user allowed to
     *  monitor the session bus (its default policy allows it). */
    KK_TRANSFER_REQUIRE_ENCRYPTED = 1
} kk_transfer_policy;

/** The default bound on one operation of a Secret Service handle (all its
 *  requests together), in milliseconds: 5 seconds. Since 0.7. */
#define KK_DEFAULT_TIMEOUT_MS 5000

/** The default bound on waiting for the user to answer a prompt, in
 *  milliseconds: 2 minutes. Since 0.7. */
#define KK_DEFAULT_PROMPT_TIMEOUT_MS 120000

/** The version of kk_secret_service_options that this header describes:
 *  2 since 0.7 (the `transfer` field), 1 in 0.5 and 0.6. The library
 *  accepts both. */
#define KK_SECRET_SERVICE_OPTIONS_VERSION 2

/** Options of kk_open_secret_service_with(). Initialize with
 *  KK_SECRET_SERVICE_OPTIONS_INIT or kk_secret_service_options_init(), then
 *  set the fields you need: fields added by later versions of the library
 *  keep their defaults in programs built against this header. Since 0.5. */
typedef struct kk_secret_service_options {
    /** KK_SECRET_SERVICE_OPTIONS_VERSION. */
    unsigned int version;
    /** The collection new items are created in: an alias ("default", or
     *  "session" for one the service does not persist) or a collection's
     *  D-Bus object path ("/org/freedesktop/secrets/collection/login").
     *  An alias is letters, digits and '_' (it is the last element of the
     *  object path /org/freedesktop/secrets/aliases/<alias>).
     *  NULL means "default". Reads, updates and removals look in every
     *  collection. Copied at open. */
    const char *collection;
    /** The bound on each operation, in milliseconds: all its requests to
     *  the service together once connected (since 0.7; each request alone
     *  before; connecting is bounded by it step by step), waits for a
     *  person aside; a listing gets 1/1000 of it more per item found. 0
     *  means the default, KK_DEFAULT_TIMEOUT_MS. */
    unsigned int timeout_ms;
    /** Whether operations may show the service's unlock prompt. */
    kk_prompt_policy prompts;
    /** How long an operation waits for the user to answer a prompt, in
     *  milliseconds; 0 means the default, KK_DEFAULT_PROMPT_TIMEOUT_MS. With KK_PROMPT_NEVER, a
     *  confirmation prompt is waited for timeout_ms instead. */
    unsigned int prompt_timeout_ms;
    /** Whether secrets may cross the bus unencrypted. Since version 2. */
    kk_transfer_policy transfer;
} kk_secret_service_options;

/** The defaults: the "default" collection, KK_DEFAULT_TIMEOUT_MS per
 *  operation, the automatic prompt policy, KK_DEFAULT_PROMPT_TIMEOUT_MS per
 *  prompt, encrypted transfer preferred. */
#define KK_SECRET_SERVICE_OPTIONS_INIT \
    { KK_SECRET_SERVICE_OPTIONS_VERSION, NULL, 0, KK_PROMPT_AUTOMATIC, 0, KK_TRANSFER_PREFER_ENCRYPTED }

/** Fills *options with the defaults of `version` (pass
 *  KK_SECRET_SERVICE_OPTIONS_VERSION; a version 1 struct is filled up to
 *  its own size). Returns KK_OK, or KK_EINVAL when options is NULL or the
 *  version is unknown to the loaded library. Thread-safe. Since 0.5. */
KK_API kk_status kk_secret_service_options_init(kk_secret_service_options *options, unsigned int version);

/** Opens a handle on the user's Secret Service with `options` (NULL: the
 *  defaults, as kk_open_secret_service()). Like kk_open_secret_service(),
 *  connecting is deferred to the first operation. On success *out owns a
 *  handle to release with kk_close().
 *
 *  Returns KK_OK; KK_EINVAL (out NULL, an unknown options version, a
 *  collection that is empty, not valid UTF-8, neither an alias nor a valid
 *  D-Bus object path, an unknown prompt or transfer policy);
 *  KK_ENOMEM. Thread-safe. Since 0.5.
 *
 *      kk_secret_service_options options = KK_SECRET_SERVICE_OPTIONS_INIT;
 *      options.collection = "session";
 *      options.prompts = KK_PROMPT_NEVER;
 *      kk_status st = kk_open_secret_service_with(&options, &kc); */
KK_API kk_status kk_open_secret_service_with(const kk_secret_service_options *options, kk_keychain **out);

/** Sets *out_encrypted to 1 when secrets cross the bus encrypted on the
 *  Secret Service handle `kc`, 0 when the service offers only plain
 *  transfer and the handle's kk_transfer_policy allowed it. Connects first
 *  if the handle has not yet (a request to the service; bounded like any
 *  operation). Returns KK_OK; KK_EINVAL (kc or out_encrypted NULL, kc not a
 *  Secret Service handle: nothing of the others crosses a bus);
 *  KK_EUNAVAILABLE; KK_EDENIED (plain only, and encryption required).
 *  Thread-safe. Since 0.7. */
KK_API kk_status kk_transfer_encrypted(kk_keychain *kc, int *out_encrypted);

/** Unlocks a collection of the Secret Service handle `kc` with its
 *  password, without a dialog: what a terminal user needs over SSH (the
 *  login did not unlock the keyring and no dialog can appear), and a
 *  headless service given the password through a systemd credential.
 *
 *  `collection` is an alias ("default"), a collection's name ("login") or
 *  object path; NULL is the handle's collection (options.collection,
 *  "default" unless set). The password is the `password_len` bytes at
 *  `password`, which this function overwrites with zeros before it
 *  returns, whatever it returns (so pass a copy to keep it). It crosses
 *  the bus inside the handle's transfer session (encrypted; see
 *  kk_transfer_encrypted()), through gnome-keyring's private
 *  UnlockWithMasterPassword, which gnome-keyring and oo7-daemon offer.
 *  A service without it (KWallet, KeePassXC) shows its own unlock prompt
 *  instead when the handle's kk_prompt_policy allows; a NULL `password`
 *  (with `password_len` 0) asks for that prompt everywhere. A collection
 *  already unlocked is left as it is (the password is not checked).
 *
 *  Returns KK_OK (the collection is unlocked); KK_EWRONGKEY (the service
 *  refused the password; the collection stays locked); KK_ENOTFOUND (no
 *  such collection); KK_ELOCKED (the service takes no password and the
 *  prompt policy forbids its prompt, or nobody answered it; the message
 *  names the ways out); KK_ECANCELED (its prompt was dismissed);
 *  KK_EINVAL (kc NULL or not a Secret Service handle, collection not a
 *  valid name: empty, not UTF-8, neither letters, digits and '_' nor an
 *  object path; password NULL with password_len > 0); KK_EUNAVAILABLE.
 *  Thread-safe. Since 0.8. */
KK_API kk_status kk_unlock(kk_keychain *kc, const char *collection, void *password, size_t password_len);

/** Locks a collection of the Secret Service handle `kc` (named as for
 *  kk_unlock(); NULL: the handle's), completing the confirmation some
 *  services ask (KeePassXC). Reads of its items then return KK_ELOCKED
 *  until it is unlocked. Returns KK_OK; KK_ENOTFOUND (no such
 *  collection); KK_EINVAL (kc NULL or not a Secret Service handle,
 *  collection not a valid name, as for kk_unlock()); KK_EUNAVAILABLE.
 *  Thread-safe. Since 0.8. */
KK_API kk_status kk_lock(kk_keychain *kc, const char *collection);

/** Opens a handle on a new, empty, process-local in-memory keychain with
 *  the same semantics as the Secret Service one. Nothing is persisted; each
 *  handle has its own items (see kk_open_memory_shared()). Returns KK_OK,
 *  KK_EINVAL (out is NULL) or KK_ENOMEM. Thread-safe. */
KK_API kk_status kk_open_memory(kk_keychain **out);

/** Opens another handle on the in-memory keychain of `other` (a handle
 *  kk_open_memory() or this function opened): each reads what the other
 *  writes, and observers of one hear the other's writes as changes made
 *  elsewhere (KK_EVENT_CHANGED, KK_EVENT_DELETED), as handles of the Secret
 *  Service hear each other. The items live while any of their handles is
 *  open. On success *out owns a handle to release with kk_close().
 *  Returns KK_OK, KK_EINVAL (other or out NULL, other not an in-memory
 *  handle) or KK_ENOMEM. Thread-safe. Since 0.4. */
KK_API kk_status kk_open_memory_shared(kk_keychain *other, kk_keychain **out);

/** The kernel keyrings a handle of kk_open_kernel_keyring_in() keeps its
 *  keys in. Nothing in any of them survives a reboot. Since 0.5. */
typedef enum kk_kernel_keyring {
    /** The user's persistent keyring (KEYCTL_GET_PERSISTENT): seen by every
     *  process of the user, across logins and sessions; it expires after
     *  /proc/sys/kernel/keys/persistent_keyring_expiry seconds (3 days by
     *  default) without use, its keys with it. */
    KK_KERNEL_PERSISTENT = 0,
    /** The user keyring (@u): seen by every process of the user; it lives
     *  while any process of the user runs, and ends with the last one. */
    KK_KERNEL_USER = 1,
    /** The calling process's session keyring (@s): seen by the processes of
     *  its login session (an SSH login, `keyctl session`), ending with it. A
     *  process without one uses the user's session keyring (@us), as keyctl
     *  does; none is created. */
    KK_KERNEL_SESSION = 2
} kk_kernel_keyring;

/** Opens a handle on the kernel keyring: kk_open_kernel_keyring_in() with
 *  KK_KERNEL_PERSISTENT, the user's persistent keyring. For machines with no
 *  Secret Service; chosen explicitly, never a fallback. Returns KK_OK,
 *  KK_EINVAL (out is NULL) or KK_ENOMEM. Thread-safe. Since 0.5. */
KK_API kk_status kk_open_kernel_keyring(kk_keychain **out);

/** Opens a handle that stores items in the kernel keyring `which` (see
 *  kk_kernel_keyring), with the add_key and keyctl system calls; no daemon,
 *  no D-Bus. Makes no system call itself: the first operation finds the
 *  keyring.
 *
 *  Each item is a key of type "user" whose description is
 *  "keychainkit:<N>:<service>:<account>", N being the service's length in
 *  UTF-8 bytes, in decimal ("keychainkit:6:my-app:token"), so every service
 *  and account, colons included, has one description; its payload is the
 *  value as is (`keyctl search @u user keychainkit:6:my-app:token`, then
 *  `keyctl print` or `keyctl pipe`). Only keys linked in that keyring itself
 *  are items, never keys of keyrings linked in it. kk_set creates the key or
 *  replaces the value of the existing one atomically (one item per key);
 *  kk_remove unlinks it. Who can read the keys it writes:
 *  - KK_KERNEL_PERSISTENT and KK_KERNEL_USER: every process of the user
 *    (a possessor may do everything; the user's other processes view,
 *    read, write and search: those keyrings are the user's, shared by all
 *    its sessions); group and others nothing;
 *  - KK_KERNEL_SESSION (since 0.7): possessors only, that is the processes
 *    whose session keyring links the key (this login session); the same
 *    user's other sessions, group and others nothing.
 *
 *  Limits: a value holds 1 to 32767 bytes (the kernel's limit for "user"
 *  keys, which have no empty payload) and the description at most 4095
 *  bytes: kk_set of other values returns KK_EINVAL saying so, after the
 *  attempt (observers are called), never truncating. Each user has a quota
 *  of keys and bytes (/proc/sys/kernel/keys/maxkeys and maxbytes: 200 keys,
 *  20000 bytes by default for users other than root; root_maxkeys and
 *  root_maxbytes for root); a write beyond it returns KK_EUNKNOWN whose
 *  message names the quota and its use. Other statuses of operations:
 *  KK_EDENIED (EACCES); KK_EUNAVAILABLE when the system calls are forbidden
 *  (ENOSYS or EPERM: a seccomp filter such as Docker's default profile) or
 *  the kernel has no (persistent) keyrings, with a message saying so.
 *
 *  Observers hear the handle's own attempts; the kernel announces no
 *  changes, so changes made elsewhere (KK_EVENT_CHANGED, KK_EVENT_DELETED)
 *  are not reported, and no delivery thread is started. Reads see every
 *  write acknowledged before they start (no cache). fork(): a child may use
 *  the handle. On success *out owns a handle to release with kk_close().
 *  Returns KK_OK, KK_EINVAL (out is NULL, `which` is not a
 *  kk_kernel_keyring) or KK_ENOMEM. Thread-safe. Since 0.5. */
KK_API kk_status kk_open_kernel_keyring_in(kk_kernel_keyring which, kk_keychain **out);

/** Where a file handle (kk_open_file()) gets the master secret its
 *  file's key is derived from. There is no fallback: a source that yields
 *  no secret fails the open with KK_ENOKEY, and nothing is written. Since 0.7. */
typedef enum kk_master_source {
    /** The first source found: the systemd credential (see
     *  KK_MASTER_CREDENTIAL), else, inside a Flatpak or Snap sandbox
     *  (/.flatpak-info exists or $SNAP_NAME is set), the Secret portal (see
     *  KK_MASTER_PORTAL), else a copy an earlier open cached in the kernel
     *  (see KK_FILE_CACHE_MASTER). */
    KK_MASTER_AUTOMATIC = 0,
    /** `master` and `master_len` of the options: the secret itself (1 to
     *  4096 bytes), as libsecret's SECRET_FILE_TEST_PASSWORD. Copied at
     *  open; wipe your copy. */
    KK_MASTER_SECRET = 1,
    /** Read from `master_fd` to its end (a pipe, a file, standard input, as
     *  gnome-keyring-daemon --unlock reads it): at most 4096 bytes, within
     *  5 seconds, the bytes as they are (a final newline is part of the
     *  secret: write it with printf '%s'). The descriptor is not closed. */
    KK_MASTER_FD = 2,
    /** The systemd credential "keychainkit.master":
     *  $CREDENTIALS_DIRECTORY/keychainkit.master, as a unit with
     *  LoadCredentialEncrypted=keychainkit.master:<file> provides it
     *  (`systemd-creds encrypt --name=keychainkit.master ...` makes the file).
     *  It must be a regular file (opened non-blocking: a FIFO put there is
     *  refused at once, never waited on), and $CREDENTIALS_DIRECTORY valid
     *  UTF-8; otherwise KK_ENOKEY, with why in kk_error_message(). */
    KK_MASTER_CREDENTIAL = 3,
    /** The app's secret from xdg-desktop-portal's Secret portal
     *  (org.freedesktop.portal.Secret, version 1), as libsecret and oo7 get
     *  it in a sandbox: 64 bytes the portal's backend (gnome-keyring,
     *  KWallet, oo7) keeps in the user's keyring, one per app. Each call to
     *  the portal is bounded by KK_DEFAULT_TIMEOUT_MS and its answer (it may
     *  unlock the keyring with a prompt) by KK_DEFAULT_PROMPT_TIMEOUT_MS. No
     *  portal, or a portal that fails or answers otherwise: KK_ENOKEY, with
     *  what happened in kk_error_message(); the request dismissed:
     *  KK_ECANCELED. The portal's answer is believed only from the unique
     *  name that owned org.freedesktop.portal.Desktop when the call was
     *  made (another bus peer cannot answer for it), and the pipe must end
     *  after exactly 64 bytes (a second writer shows as more: KK_ENOKEY).
     *  Since 0.7. */
    KK_MASTER_PORTAL = 4
} kk_master_source;

/** The version of kk_file_options that this header describes. */
#define KK_FILE_OPTIONS_VERSION 1

/** Options of kk_open_file(). Initialize with KK_FILE_OPTIONS_INIT, then
 *  set the fields you need. Since 0.7. */
typedef struct kk_file_options {
    /** KK_FILE_OPTIONS_VERSION. */
    unsigned int version;
    /** The keyring file. NULL means $XDG_DATA_HOME/keychainkit/default.keyring
     *  (~/.local/share/keychainkit/default.keyring); inside a Flatpak or Snap
     *  sandbox libsecret's $XDG_DATA_HOME/keyrings/default.keyring, so an app
     *  and its libsecret-using libraries share one file. Its directory is
     *  created (mode 0700) at the first write. Copied at open. */
    const char *path;
    /** Where the master secret comes from. */
    kk_master_source master_source;
    /** With KK_MASTER_SECRET: the secret's bytes (any bytes, NUL included)
     *  and their number. */
    const unsigned char *master;
    size_t master_len;
    /** With KK_MASTER_FD: the descriptor to read; -1 otherwise. */
    int master_fd;
    /** How long a write waits for another process's write to end, in
     *  milliseconds; 0 means KK_DEFAULT_TIMEOUT_MS. */
    unsigned int lock_timeout_ms;
    /** KK_FILE_CACHE_MASTER, or 0. */
    unsigned int flags;
} kk_file_options;

/** kk_file_options.flags: once the master secret opens the file, keep a
 *  copy in the user's persistent kernel keyring (a "user" key described
 *  "keychainkit:23:keychainkit-file-master:<absolute path>", readable by the
 *  user's processes), which KK_MASTER_AUTOMATIC reads last: later processes
 *  of the user open the file with no source until reboot (or 3 days unused:
 *  /proc/sys/kernel/keys/persistent_keyring_expiry). Best effort: a kernel
 *  that refuses caches nothing, and the open still succeeds. A cached copy
 *  that no longer opens the file is forgotten (the open returns
 *  KK_EWRONGKEY). Since 0.7. */
#define KK_FILE_CACHE_MASTER 1u

/** kk_file_options' defaults: the default path, the automatic source. */
#define KK_FILE_OPTIONS_INIT { KK_FILE_OPTIONS_VERSION, NULL, KK_MASTER_AUTOMATIC, NULL, 0, -1, 0, 0 }

/** Opens a handle that keeps items in an encrypted file, for machines with
 *  no Secret Service (servers, CI, containers) where items must survive a
 *  reboot. NULL options means KK_FILE_OPTIONS_INIT.
 *
 *  The file is libsecret's file backend's format (libsecret >= 0.20.2, oo7):
 *  the key is PBKDF2-HMAC-SHA256 of the master secret (100,000 rounds, a
 *  32-byte random salt), items are AES-128-CBC encrypted and HMAC-SHA256
 *  authenticated, attribute values stored as HMACs. Keys are the attributes
 *  `service` and `username`, as on the Secret Service, so
 *  `SECRET_BACKEND=file SECRET_FILE_TEST_PATH=<file>
 *  SECRET_FILE_TEST_PASSWORD=<master> secret-tool lookup service S username A`
 *  finds our items and we find its. Items carry `xdg:schema` too, so
 *  libsecret's store of the same key (whose replace matches the whole set
 *  of attributes) adds a copy beside ours; reads then take the most
 *  recently modified, and the next kk_set makes them one again (see "One
 *  item per key"). Server logins (kk_server_login_*) are
 *  stored there too.
 *
 *  The open reads the file if it exists and returns KK_EWRONGKEY when the
 *  master secret opens none of its items (an empty or new file accepts any
 *  secret); KK_ECORRUPT when it is damaged, not a keyring file, of another
 *  version, or has weak parameters (fewer than 100,000 rounds, a salt under
 *  32 bytes) or costly ones (more than 1,000,000 rounds: minutes to
 *  derive); KK_EDENIED when it is not ours or others may read or write it
 *  (chmod 600), when its directory belongs to another user than this one
 *  or root, or anyone may write it (a sticky /tmp too), and when a write finds
 *  its lock file a symbolic link, not a regular file, or another user's
 *  (opened with O_NOFOLLOW, then checked with fstat); KK_ENOKEY when the
 *  source yields no secret; KK_EINVAL when path is NULL and the default
 *  file's directory ($XDG_DATA_HOME, $HOME) is not valid UTF-8 (another
 *  path is never used instead). In each case nothing is written, and
 *  kk_error_message() says what and where.
 *
 *  Reads answer from memory while the file is unchanged (one stat(2) per
 *  call) and read it again when another process changed it. Each write
 *  takes a lock (the file "<path>.lock" beside it, at most lock_timeout_ms),
 *  reads the newest file, changes it and replaces it atomically and
 *  durably: a new file of mode 0600, fsync, rename, fsync of the directory.
 *  So concurrent writers, in this process or others, lose nothing; a reader
 *  sees a whole file, old or new; a kill at any moment leaves the last
 *  acknowledged write (and the next write removes the new file it left:
 *  only names "<path>.keychainkit-new.XXXXXX", never another file of the
 *  user's beside it). A
 *  path that is a symbolic link is followed at open: writes replace its
 *  target, and the link stays. Items another master secret sealed are kept as they
 *  are, never read. Observers hear changes made by other handles and
 *  processes (libsecret's too) through inotify, as KK_EVENT_CHANGED and
 *  KK_EVENT_DELETED. fork(): a child may use the handle.
 *
 *  On success *out owns a handle to release with kk_close(). Returns KK_OK,
 *  KK_EWRONGKEY, KK_ENOKEY, KK_ECORRUPT, KK_EDENIED, KK_ECANCELED (the portal), KK_EINVAL (out NULL,
 *  an unknown options version or master source, an empty path, master NULL
 *  or master_len over 4096 with KK_MASTER_SECRET, a negative master_fd with
 *  KK_MASTER_FD), KK_EUNKNOWN (the file could not be read) or
 *  KK_ENOMEM. Thread-safe. Since 0.7.
 *
 *      kk_file_options options = KK_FILE_OPTIONS_INIT;
 *      options.master_source = KK_MASTER_FD;
 *      options.master_fd = 0;
 *      kk_status st = kk_open_file(&options, &kc); */
KK_API kk_status kk_open_file(const kk_file_options *options, kk_keychain **out);

/** How long a handle's items last (kk_persistence_of()). Since 0.7. */
typedef enum kk_persistence {
    /** On disk: items survive logout and reboot (a Secret Service's
     *  collections but "session", the file store). */
    KK_PERSISTENT = 0,
    /** In the kernel until the machine restarts (KK_KERNEL_PERSISTENT). */
    KK_UNTIL_REBOOT = 1,
    /** Until the user's session or last process ends (the "session"
     *  collection, KK_KERNEL_USER, KK_KERNEL_SESSION). */
    KK_UNTIL_LOGOUT = 2,
    /** In this process, until the last handle on the items is closed
     *  (kk_open_memory()). */
    KK_UNTIL_CLOSE = 3
} kk_persistence;

/** Stores in *out how long the items of `kc` last, so a program can refuse
 *  a store that will forget. Decided from the handle alone (no I/O).
 *  Returns KK_OK or KK_EINVAL (kc or out NULL). Thread-safe. Since 0.7. */
KK_API kk_status kk_persistence_of(kk_keychain *kc, kk_persistence *out);

/** Stores in *out_name the backend of `kc`, as static text never freed:
 *  "secret-service", "file", "kernel" or "memory" (the names of
 *  `keychainkit --backend`); what kk_open_default() chose, for instance.
 *  Decided from the handle alone (no I/O). Returns KK_OK or KK_EINVAL (kc
 *  or out_name NULL). Thread-safe. Since 0.8. */
KK_API kk_status kk_backend_of(kk_keychain *kc, const char **out_name);

/** Releases a handle: removes its observers (calling their destroy
 *  functions), ends its delivery thread (see kk_observe()), then frees it.
 *  NULL is accepted and ignored. The handle must not be used afterwards,
 *  nor closed while another thread uses it; closing it from inside one of
 *  its own callbacks is allowed (it is released when the outermost call
 *  returns), and no callback of the handle starts afterwards, not even
 *  another observer of the change being delivered.
 *
 *  kk_close() waits until the delivery thread has ended, a callback it is
 *  running included; called from such a callback, it does not wait, and
 *  the thread ends when the callback returns. A callback must therefore not
 *  wait for a thread that is inside kk_close() of the same handle. */
KK_API void kk_close(kk_keychain *kc);

/* ------------------------------------------------------------------------ */
/* Items                                                                     */
/* ------------------------------------------------------------------------ */

/** Reads the value stored for (service, account).
 *
 *  On KK_OK, *out_value is a new NUL-terminated copy of the value, to be
 *  released with kk_secret_free(), and *out_len (when out_len is not NULL)
 *  its length without the terminator; the value may itself contain NUL
 *  bytes. On any failure *out_value is NULL.
 *
 *  Returns KK_OK; KK_ENOTFOUND when no item exists; KK_ELOCKED when the
 *  item is in a locked collection, or a locked collection hides its items
 *  (never reported as absent; see Conventions for prompts); KK_ECANCELED
 *  when the user dismissed the unlock prompt;
 *  KK_EUNAVAILABLE; KK_EDENIED; KK_EINVAL (kc, account or out_value NULL,
 *  bad strings); KK_ENOMEM; KK_EUNKNOWN. Causally fresh (see Conventions):
 *  changes made by other processes are seen at once. Thread-safe. */
KK_API kk_status kk_get(kk_keychain *kc, const char *service, const char *account,
                        char **out_value, size_t *out_len);

/** Reads the values of many accounts of one service together: the result
 *  of kk_get() for each, at a fraction of its cost. On the Secret Service
 *  a batch is one search of the service (and, when the service holds more
 *  than twice as many items as accounts asked for, one search per account,
 *  sent together), one round trip for the attributes of the items found
 *  (every item is checked against its key, as kk_get() checks) and one
 *  GetSecrets call, where kk_get() costs a search and a GetSecret per
 *  account; accounts whose items the handle already knows cost only their
 *  share of one GetSecrets. Other backends read the accounts one by one.
 *  The cost grows with the accounts asked for, not with the service's items.
 *
 *      const char *names[] = {"db", "api", "smtp"};
 *      char *values[3]; size_t lens[3]; kk_status each[3];
 *      if (kk_get_many(kc, "my-app", names, 3, values, lens, each) == KK_OK)
 *          for (int i = 0; i < 3; i++)
 *              if (each[i] == KK_OK) { use(values[i], lens[i]); kk_secret_free(values[i]); }
 *
 *  For each i < count: out_statuses[i] is what kk_get(kc, service,
 *  accounts[i], ...) would return — KK_OK, KK_ENOTFOUND, KK_ELOCKED (its
 *  item is locked, never reported absent), KK_EINVAL (accounts[i] NULL or
 *  not UTF-8), ...; on KK_OK, out_values[i] is a new NUL-terminated copy
 *  of the value, released with kk_secret_free(), and out_lens[i] (when
 *  out_lens is not NULL) its length; otherwise out_values[i] is NULL. An
 *  account may be asked for twice; each entry then holds its own copy.
 *
 *  Returns KK_OK when every account was read or proven absent (each
 *  status KK_OK or KK_ENOTFOUND). Otherwise it returns the first other
 *  status among the entries, and kk_error_message() describes that one;
 *  what fails for the whole batch (KK_EUNAVAILABLE, KK_ECANCELED at an
 *  unlock prompt, a bad service) is then every entry's status. With
 *  prompts allowed, one unlock prompt is shown for every locked item the
 *  batch needs. KK_EINVAL without touching any entry when kc, or accounts,
 *  out_values or out_statuses with count > 0, is NULL, or when count is more
 *  than PTRDIFF_MAX / sizeof(char *) (no array can be that long: such a
 *  count is a caller's arithmetic gone wrong). count 0 is KK_OK.
 *  As fresh as kk_get(); one operation under the handle's lock, its
 *  timeout growing with the items found. Thread-safe. Since 0.7. */
KK_API kk_status kk_get_many(kk_keychain *kc, const char *service, const char *const *accounts,
                             size_t count, char **out_values, size_t *out_lens,
                             kk_status *out_statuses);

/** Tells whether an item exists for (service, account) without reading its
 *  value: no secret crosses the bus or enters this process.
 *
 *  Returns KK_OK when an item exists (also when its collection is locked,
 *  or its value is not valid UTF-8); KK_ENOTFOUND when none does; KK_ELOCKED
 *  when a locked collection hides its items (KeePassXC), so presence cannot
 *  be told; KK_ECANCELED; KK_EUNAVAILABLE; KK_EDENIED; KK_EINVAL (kc or account NULL, bad
 *  strings); KK_EUNKNOWN. As fresh as kk_get(). Thread-safe. Since 0.3. */
KK_API kk_status kk_exists(kk_keychain *kc, const char *service, const char *account);

/** Stores `len` bytes at `value` for (service, account), replacing the
 *  current value or creating the item. The bytes may contain NUL; value may
 *  be NULL when len is 0. The library keeps no reference to `value`.
 *
 *  Updates the existing item when there is one; otherwise creates one,
 *  replacing atomically the value of an item another writer created
 *  meanwhile. Under contention (other threads, handles or processes setting
 *  or removing the key at the same time) kk_set still returns KK_OK: never
 *  KK_EDUPLICATE, never KK_ENOTFOUND. Overlapping kk_set calls of one key
 *  leave one item holding one of their values; a kk_remove overlapping a
 *  kk_set leaves either no item or that value. See "One item per key".
 *
 *  Returns KK_OK; KK_ELOCKED (the collection or the item is locked, nothing
 *  stored); KK_ECANCELED (the user dismissed a prompt, nothing stored);
 *  KK_EUNAVAILABLE; KK_EDENIED; KK_EINVAL (kc or account NULL, bad strings,
 *  value NULL with len > 0, len > KK_MAX_VALUE_SIZE; a value or key the kernel
 *  keyring cannot hold, see kk_open_kernel_keyring_in()); KK_EUNKNOWN. Observers of the key are called after
 *  the attempt, whatever its outcome, before this function returns; a call
 *  rejected with KK_EINVAL is no attempt and notifies nobody. Thread-safe. */
KK_API kk_status kk_set(kk_keychain *kc, const char *service, const char *account,
                        const void *value, size_t len);

/** Removes every item of (service, account). Removing an absent item is
 *  KK_OK (but a key a locked collection may hide is KK_ELOCKED, not
 *  absent). Returns KK_OK; KK_ELOCKED (nothing removed); KK_ECANCELED;
 *  KK_EUNAVAILABLE;
 *  KK_EDENIED; KK_EINVAL; KK_EUNKNOWN. Observers of the key are called after
 *  the attempt (not for a call rejected with KK_EINVAL). Thread-safe. */
KK_API kk_status kk_remove(kk_keychain *kc, const char *service, const char *account);

/** Lists the accounts that have an item in `service` (NULL: the default
 *  service), sorted by their UTF-8 bytes, without reading any value. Items in
 *  locked collections count (their attributes are not secret). When a
 *  locked collection hides its items (KeePassXC), or shows locked items of
 *  the service with their attributes hashed (see Conventions), the list
 *  would be incomplete: KK_ELOCKED, and kk_error_message() names the
 *  collections or items it could not see into (or, when prompts are
 *  allowed, the user is asked to unlock them first).
 *
 *  On KK_OK, *out_accounts is a NULL-terminated array of NUL-terminated
 *  UTF-8 strings, to be released with kk_list_free() (an empty list is an
 *  array holding only NULL; the empty account, when it has an item, is the
 *  string ""), and *out_count (when out_count is not NULL) the
 *  number of accounts. On failure *out_accounts is NULL.
 *
 *  Returns KK_OK; KK_ELOCKED; KK_ECANCELED; KK_EUNAVAILABLE; KK_EDENIED;
 *  KK_EINVAL (kc or out_accounts NULL, bad service); KK_ENOMEM; KK_EUNKNOWN. Thread-safe. Since 0.2. */
KK_API kk_status kk_list(kk_keychain *kc, const char *service, char ***out_accounts, size_t *out_count);

/** Frees a list returned by kk_list(). NULL is accepted and ignored. */
KK_API void kk_list_free(char **accounts);

/** Overwrites a value returned by kk_get() or kk_server_login_get() with
 *  zeros and frees it. NULL is accepted and ignored. Thread-safe. */
KK_API void kk_secret_free(char *value);

/* ------------------------------------------------------------------------ */
/* Server logins                                                             */
/* ------------------------------------------------------------------------ */

/** The version of kk_server_login this header describes. */
#define KK_SERVER_LOGIN_VERSION 1

/** A login on a server: what identifies a password for a host, as
 *  KeychainAccess's and libsecret's "network passwords" do.
 *
 *  Stored as libsecret's org.gnome.keyring.NetworkPassword items
 *  (attributes server, user, protocol, port, object = the path, domain,
 *  authtype), so GNOME's Seahorse, other libsecret clients and git's
 *  git-credential-libsecret find them. `server` and `account` are required
 *  (the account may be ""); the other fields are NULL (port 0) when not
 *  part of the login. A lookup matches a login exactly: a field left NULL
 *  matches only items without it. Every string is UTF-8.
 *
 *      kk_server_login login = KK_SERVER_LOGIN_INIT;
 *      login.server = "mail.example.com";
 *      login.account = "alice";
 *      login.protocol = "imap";
 *      kk_server_login_set(kc, &login, "s3cret", 6);
 *
 *  Server logins live on the Secret Service and in in-memory handles (apart
 *  from their (service, account) items); a kernel keyring handle answers
 *  KK_EINVAL. They do not notify kk_observe() observers. Since 0.6. */
typedef struct kk_server_login {
    /** KK_SERVER_LOGIN_VERSION. */
    unsigned int version;
    /** The host name or address, without scheme or port: "git.example.com". */
    const char *server;
    /** The account (user name) on it. */
    const char *account;
    /** The protocol (URL scheme), "https", "imap", ...; NULL: none. */
    const char *protocol;
    /** The port, 1 to 65535; 0: none. */
    unsigned int port;
    /** The path on the server, "team/repo.git"; NULL: none. */
    const char *path;
    /** The authentication domain (realm); NULL: none. */
    const char *domain;
    /** The authentication type, "basic", "ntlm", ...; NULL: none. */
    const char *authtype;
} kk_server_login;

/** A login with every optional field unset. */
#define KK_SERVER_LOGIN_INIT { KK_SERVER_LOGIN_VERSION, NULL, NULL, NULL, 0, NULL, NULL, NULL }

/** Reads the password stored for exactly `login`. On KK_OK, *out_value is a
 *  new NUL-terminated copy, released with kk_secret_free(), and *out_len
 *  (when not NULL) its length; on failure *out_value is NULL.
 *
 *  Returns KK_OK; KK_ENOTFOUND; KK_ELOCKED (locked, never absent);
 *  KK_ECANCELED; KK_EUNAVAILABLE; KK_EDENIED; KK_EINVAL (kc, login,
 *  out_value NULL, an unknown version, server or account NULL, an empty
 *  server, a port above 65535, bad strings, a kernel keyring handle);
 *  KK_ENOMEM; KK_EUNKNOWN. Thread-safe. Since 0.6. */
KK_API kk_status kk_server_login_get(kk_keychain *kc, const kk_server_login *login,
                                     char **out_value, size_t *out_len);

/** Stores `len` bytes at `value` as the password of `login`: its item is
 *  updated in place, or created (labelled "protocol://account@server:port/path"
 *  with the parts given); the login is left with one item. value may be
 *  NULL when len is 0.
 *
 *  Returns KK_OK; KK_ELOCKED (nothing stored); KK_ECANCELED;
 *  KK_EUNAVAILABLE; KK_EDENIED; KK_EINVAL (as kk_server_login_get(), and
 *  value NULL with len > 0, len > KK_MAX_VALUE_SIZE); KK_EUNKNOWN.
 *  Thread-safe. Since 0.6. */
KK_API kk_status kk_server_login_set(kk_keychain *kc, const kk_server_login *login,
                                     const void *value, size_t len);

/** Removes the password of exactly `login`; removing an absent one is
 *  KK_OK. Returns KK_OK; KK_ELOCKED (nothing removed); KK_ECANCELED;
 *  KK_EUNAVAILABLE; KK_EDENIED; KK_EINVAL; KK_EUNKNOWN. Thread-safe. Since 0.6. */
KK_API kk_status kk_server_login_remove(kk_keychain *kc, const kk_server_login *login);

/** Lists the accounts with a password on `server` (any protocol, port or
 *  path), sorted by their UTF-8 bytes, without duplicates and without
 *  reading any password. *out_accounts and *out_count as kk_list() (release
 *  with kk_list_free()).
 *
 *  Returns KK_OK; KK_ELOCKED (a locked collection hides its items, or shows
 *  them hashed, as for kk_list());
 *  KK_ECANCELED; KK_EUNAVAILABLE; KK_EDENIED; KK_EINVAL (kc, server or
 *  out_accounts NULL, an empty or bad server, a kernel keyring handle);
 *  KK_ENOMEM; KK_EUNKNOWN. Thread-safe. Since 0.6. */
KK_API kk_status kk_server_login_accounts(kk_keychain *kc, const char *server,
                                          char ***out_accounts, size_t *out_count);

/* ------------------------------------------------------------------------ */
/* Observers                                                                 */
/* ------------------------------------------------------------------------ */

/** What happened to an observed key: a mutation attempt through the handle
 *  (KK_EVENT_SET, KK_EVENT_REMOVE), or a change made elsewhere
 *  (KK_EVENT_CHANGED, KK_EVENT_DELETED). */
typedef enum kk_event {
    /** kk_set() through this handle: insert or update. */
    KK_EVENT_SET = 1,
    /** kk_remove() through this handle. */
    KK_EVENT_REMOVE = 2,
    /** The item was created or changed elsewhere — by another process, or
     *  through another handle: read it again. Status KK_OK. Since 0.4. */
    KK_EVENT_CHANGED = 3,
    /** The item was removed elsewhere. Status KK_OK. Since 0.4. */
    KK_EVENT_DELETED = 4
} kk_event;

/** An observer callback. Called after every kk_set() or kk_remove() on the
 *  observed key through the handle, with the attempt's status (KK_OK or an
 *  error: failed attempts and equal values notify too; calls rejected with
 *  KK_EINVAL are no attempts and do not); and when another process or
 *  another handle changes the key's item (KK_EVENT_CHANGED,
 *  KK_EVENT_DELETED, status KK_OK; no value is passed: read it). `service`
 *  and `account` are valid only during the call. */
typedef void (*kk_observer)(kk_event event, const char *service, const char *account,
                            kk_status status, void *userdata);

/** How long a burst of another program's changes to one observed key may
 *  pause and still be one KK_EVENT_CHANGED or KK_EVENT_DELETED, in
 *  milliseconds: the callback comes this long after the burst's last change.
 *  KWallet announces one write twice, KeePassXC about fifty times. Since 0.9. */
#define KK_OBSERVE_COALESCE_MS 25

/** The longest a burst of changes to one observed key delays its callback,
 *  counted from its first change, in milliseconds. Since 0.9. */
#define KK_OBSERVE_BURST_MAX_MS 250

/** Registers `cb` for (service, account) on `kc`.
 *
 *  The handle's own attempts are reported on the thread that called
 *  kk_set()/kk_remove(), after the attempt and before that call returns.
 *  Changes made elsewhere are reported on the handle's delivery thread,
 *  which the library starts with the handle's first observer and ends with
 *  its last one or kk_close(); a fork()ed child gets its own on its next
 *  call through the handle. Either way no library lock is held: a callback
 *  may call any kk_ function, including kk_get() and kk_unobserve() on its
 *  own token. Several threads may run callbacks at once.
 *
 *  Changes made elsewhere (Secret Service): items created, replaced,
 *  updated in place by KeychainKit, or removed — by `secret-tool`,
 *  libsecret, Python keyring, another process or another handle — are
 *  reported once each, within tens of milliseconds (a burst of changes to
 *  one key is one callback: see KK_OBSERVE_COALESCE_MS and
 *  KK_OBSERVE_BURST_MAX_MS);
 *  a restart of the service reports every observed key once. Not seen: an
 *  update in place by another tool (Item.SetSecret, which the services do
 *  not announce; KeychainKit announces its own), and items whose attributes
 *  a locked collection hides. The handle's own writes are reported only as
 *  KK_EVENT_SET/KK_EVENT_REMOVE; the service's signals do not say who
 *  wrote, so within 250 ms of this handle creating or replacing an item,
 *  another tool's creation or replacement of that same item is taken for
 *  the echo of ours (a KeychainKit writer's in-place update is always told
 *  apart; deletions are only taken for the echo of our deletions). kk_observe()
 *  of a key not yet observed returns once its changes are being listened
 *  for: after the delivery thread has finished a callback it is running,
 *  and at most about 10 s later in any case (called from such a callback,
 *  it does not wait). Observers cost writes nothing; the delivery
 *  thread reads the attributes of an item created elsewhere (one D-Bus
 *  call per item it has not seen) to tell its key, and keys nobody observes
 *  cost nothing more. `destroy` (may be NULL) is called with `userdata`
 *  exactly once: after kk_unobserve() or kk_close() removes the observer,
 *  once no callback of it is still running (so possibly on the thread of
 *  such a callback).
 *
 *  On KK_OK, *out_token identifies the observer (never 0). Returns KK_OK or
 *  KK_EINVAL (kc, account, cb or out_token NULL, bad strings); on failure
 *  `destroy` is not called. Thread-safe. */
KK_API kk_status kk_observe(kk_keychain *kc, const char *service, const char *account,
                            kk_observer cb, void *userdata, void (*destroy)(void *userdata),
                            uint64_t *out_token);

/** Removes the observer `token` of `kc`. Returns KK_OK, or KK_EINVAL when kc
 *  is NULL or the token is unknown or already removed.
 *
 *  Once it returns, no further call of that callback is started: a
 *  notification checks, under the library's lock, that each callback is
 *  still registered just before calling it, so a callback removed by
 *  another callback of the change being delivered is not called, and the
 *  delivery thread's queued changes are not delivered to it. A call that
 *  another thread had already started — or was starting just as
 *  kk_unobserve() ran — is not waited for: it may still run, and `destroy`
 *  runs after it. Removing the handle's last observer ends its delivery thread
 *  and, like kk_close(), waits until it has (a callback it runs included),
 *  unless called from such a callback: do not hold a lock that a callback
 *  takes while removing the last observer. Thread-safe. */
KK_API kk_status kk_unobserve(kk_keychain *kc, uint64_t token);

#ifdef __cplusplus
}
#endif

#endif /* KEYCHAINKIT_H */
