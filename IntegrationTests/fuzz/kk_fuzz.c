/* SPDX-License-Identifier: MIT */
/*
 * kk_fuzz.c — a libFuzzer harness for the C ABI on the in-memory backend.
 *
 * The input bytes are read as a program: a sequence of calls (open, close,
 * set, get, remove, observe, unobserve, check) with their arguments. Every
 * call is made on the library AND applied to a reference model (items per
 * handle as key -> bytes, observers per handle), and any difference aborts:
 *
 * - statuses are exactly what include/keychainkit.h promises (KK_EINVAL for
 *   a NULL handle/account/out pointer, an empty service, a non-UTF-8 string, a NULL
 *   value with len > 0, len > KK_MAX_VALUE_SIZE, an unknown token;
 *   KK_ENOTFOUND for an absent get; KK_OK for an absent remove);
 * - kk_get returns the model's bytes exactly, NUL-terminated, and on failure
 *   sets *out_value to NULL and leaves *out_len alone;
 * - a failing call leaves a non-empty kk_error_message();
 * - an observer of key K is called exactly once per non-EINVAL kk_set /
 *   kk_remove on K through its handle, with the right event, KK_OK (the
 *   memory backend never fails) and the key's service and account; never
 *   after its removal; never for a rejected (KK_EINVAL) call;
 * - destroy(userdata) runs exactly once per observer that had one: on
 *   kk_unobserve or kk_close, not while its callback runs, and never for a
 *   rejected kk_observe;
 * - callbacks re-enter: some call kk_get on their key (and must see the new
 *   value: callbacks run after the mutation), some kk_unobserve their own
 *   token (KK_OK, then KK_EINVAL a second time).
 *
 * Keys are compared byte for byte, as the Secret Service compares attribute
 * strings. Strings come from a small table (so that calls collide on the
 * same keys, and so that canonically equivalent Unicode spellings and
 * invalid UTF-8 show up at once) or from raw input bytes.
 *
 * KK_FUZZ_ASCII_KEYS=1 (environment) turns every valid non-ASCII key into
 * ASCII. It exists only to keep fuzzing the rest of the API while the
 * canonical-equivalence bug (IntegrationTests/fuzz/regressions/README) is open; CI
 * does not set it.
 *
 * Input format (see also gen_corpus.sh): a byte stream; a read past its end
 * yields 0. Each call starts with an opcode byte (value % OP_COUNT).
 */
#include <keychainkit.h>

#define FUZZ_NAME "kk_fuzz"
#include "fuzz_expect.h"
#include "fuzz_utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- divergence reporting ---------------------------------------------- */

#define EXPECT_STATUS(got, want, what)                                                 \
    do {                                                                               \
        kk_status got_ = (got), want_ = (want);                                        \
        if (got_ != want_)                                                             \
            FAILF("%s returned %d, the model expects %d (kk_error_message: \"%s\")",   \
                  (what), (int)got_, (int)want_, kk_error_message());                  \
        if (got_ != KK_OK) {                                                           \
            const char *m_ = kk_error_message();                                       \
            EXPECT(m_ != NULL && m_[0] != '\0', "%s failed with %d but "                \
                   "kk_error_message() is empty", (what), (int)got_);                  \
        }                                                                              \
    } while (0)

/* ---- input reader ------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t u8(reader *r)
{
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

static uint64_t u64(reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | u8(r);
    return v;
}


/* ---- strings -------------------------------------------------------------- */

#define MAX_STR 256

/** The default service: the last non-empty path component of argv[0]. */
static char progname[MAX_STR] = "keychainkit";
static int ascii_keys;
static int trace; /* KK_FUZZ_TRACE=1: print each call to stderr (for triage) */

/** Prints a string argument for the trace: NULL, or quoted with \x escapes. */
static void trace_str(const char *label, const char *s)
{
    if (s == NULL) { fprintf(stderr, " %s=NULL", label); return; }
    fprintf(stderr, " %s=\"", label);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c >= 0x20 && *c < 0x7F && *c != '"' && *c != '\\') fputc(*c, stderr);
        else fprintf(stderr, "\\x%02X", *c);
    fputc('"', stderr);
}

#define TRACE(...)                                                \
    do {                                                          \
        if (trace) fprintf(stderr, __VA_ARGS__);                  \
    } while (0)

/** Traces the start of a call on a key. */
static void trace_call(const char *op, int slot, const void *kc, const char *service,
                       const char *account)
{
    if (!trace) return;
    fprintf(stderr, "%s slot=%d%s", op, slot, kc ? "" : " kc=NULL");
    trace_str("service", service);
    trace_str("account", account);
}

/* Strings chosen by index so that calls collide. Several spell the same
 * text in canonically equivalent ways (they are different keys to the
 * Secret Service, which compares bytes); several are invalid UTF-8. */
static const char *const table[] = {
    "a", "b", "svc", "",                         /* plain; an empty service is EINVAL, an empty account a key */
    NULL,                                        /* slot for progname */
    "\xC3\xA9", "e\xCC\x81",                     /* é precomposed / decomposed */
    "\xC3\x85", "\xE2\x84\xAB", "A\xCC\x8A",     /* Å, ANGSTROM SIGN, A+ring */
    "\xF0\x9F\x94\x91", "\xEF\xBF\xBE",          /* U+1F511, U+FFFE: valid */
    "\xFF", "\xC3", "\xED\xA0\x80", "\xC0\x80",  /* invalid: byte, truncated, */
    "\xF4\x90\x80\x80", "a\x80z",                /* surrogate, overlong, >10FFFF, */
};                                               /* stray continuation */
#define TABLE_SIZE (sizeof table / sizeof table[0])

/** Reads a string into buf and returns buf, or NULL (a NULL argument). */
static const char *gen_str(reader *r, char buf[MAX_STR])
{
    uint8_t sel = u8(r) % 32;
    if (sel == 0) return NULL;
    if (sel <= TABLE_SIZE) {
        const char *s = sel - 1 == 4 ? progname : table[sel - 1];
        snprintf(buf, MAX_STR, "%s", s);
    } else {
        /* Raw bytes; a 0 byte ends the C string, as it would for a caller. */
        size_t len = u8(r) % 12;
        for (size_t i = 0; i < len; i++) buf[i] = (char)u8(r);
        buf[len] = '\0';
    }
    if (ascii_keys && valid_utf8((const unsigned char *)buf))
        for (char *c = buf; *c; c++)
            if ((unsigned char)*c >= 0x80) *c = '~';
    return buf;
}

/** Whether a (service, account) pair is a valid key; resolves a NULL
 *  service to the default one into `svc_out`. */
static int valid_key(const char *service, const char *account, char svc_out[MAX_STR])
{
    if (account == NULL || !valid_utf8((const unsigned char *)account)) return 0;  /* "" is a key */
    if (service == NULL) service = progname;
    if (service[0] == '\0' || !valid_utf8((const unsigned char *)service)) return 0;
    snprintf(svc_out, MAX_STR, "%s", service);
    return 1;
}

/* ---- the model -------------------------------------------------------- */

#define MAX_HANDLES 3
#define MAX_OBSERVERS 64

typedef struct item {
    char service[MAX_STR];
    char account[MAX_STR];
    unsigned char *value;
    size_t len;
} item;

typedef struct handle {
    kk_keychain *kc;  /* NULL when the slot is closed */
    unsigned generation;
    item *items;
    size_t count, capacity;
} handle;

enum { OBS_FREE, OBS_LIVE, OBS_REMOVED, OBS_REJECTED };

/* What a callback does besides recording the call. */
enum {
    MODE_COUNT,          /* nothing */
    MODE_GET,            /* kk_get of its key: must see the new value */
    MODE_UNOBSERVE,      /* kk_unobserve(own token): KK_OK */
    MODE_GET_UNOBSERVE,  /* both */
    MODE_UNOBSERVE_TWICE,/* KK_OK, then KK_EINVAL */
    MODE_COUNT_OF_MODES
};

typedef struct observer {
    int state;
    int slot;             /* handle slot and its generation */
    unsigned generation;
    kk_keychain *kc;
    char service[MAX_STR];
    char account[MAX_STR];
    uint64_t token;
    int mode;
    int has_destroy;
    int pending;          /* 1: the current call must call it once */
    int in_callback;
    int destroyed;        /* destroy calls */
    kk_event want_event;
} observer;

static handle handles[MAX_HANDLES];
static unsigned generations;
static observer observers[MAX_OBSERVERS];

static item *find_item(handle *h, const char *service, const char *account)
{
    for (size_t i = 0; i < h->count; i++)
        if (strcmp(h->items[i].service, service) == 0 && strcmp(h->items[i].account, account) == 0)
            return &h->items[i];
    return NULL;
}

static void model_set(handle *h, const char *service, const char *account, const void *value,
                      size_t len)
{
    item *it = find_item(h, service, account);
    if (it == NULL) {
        if (h->count == h->capacity) {
            h->capacity = h->capacity ? h->capacity * 2 : 8;
            h->items = realloc(h->items, h->capacity * sizeof *h->items);
            if (h->items == NULL) abort();
        }
        it = &h->items[h->count++];
        snprintf(it->service, MAX_STR, "%s", service);
        snprintf(it->account, MAX_STR, "%s", account);
    } else {
        free(it->value);
    }
    it->value = malloc(len ? len : 1);
    if (it->value == NULL) abort();
    if (len) memcpy(it->value, value, len);
    it->len = len;
}

static void model_remove(handle *h, const char *service, const char *account)
{
    item *it = find_item(h, service, account);
    if (it == NULL) return;
    free(it->value);
    *it = h->items[--h->count];
}

static void model_clear(handle *h)
{
    for (size_t i = 0; i < h->count; i++) free(h->items[i].value);
    free(h->items);
    h->items = NULL;
    h->count = h->capacity = 0;
}

/** Checks kk_get(kc, spelled, account) against the model's item (or its
 *  absence) for (service, account); `spelled` is the service as passed to
 *  the library (NULL: the default service, which `service` resolves).
 *  `kc` belongs to handle `h`. */
static void check_get_as(handle *h, kk_keychain *kc, const char *service, const char *spelled,
                         const char *account)
{
    item *it = find_item(h, service, account);
    char *value = (char *)&value; /* a sentinel: must become NULL on failure */
    size_t len = 0x5eed;
    kk_status st = kk_get(kc, spelled, account, &value, &len);
    EXPECT_STATUS(st, it ? KK_OK : KK_ENOTFOUND, "kk_get");
    if (st != KK_OK) {
        EXPECT(value == NULL, "kk_get failed but left *out_value set");
        EXPECT(len == 0x5eed, "kk_get failed but wrote *out_len");
        return;
    }
    EXPECT(value != NULL, "kk_get returned KK_OK and a NULL value");
    EXPECT(len == it->len, "kk_get length %zu, model %zu", len, it->len);
    EXPECT(memcmp(value, it->value, len) == 0, "kk_get bytes differ from the model's");
    EXPECT(value[len] == '\0', "kk_get value is not NUL-terminated");
    kk_secret_free(value);
}

static void check_get(handle *h, kk_keychain *kc, const char *service, const char *account)
{
    check_get_as(h, kc, service, service, account);
}

/* ---- observer callbacks ------------------------------------------------- */

static void on_destroy(void *userdata)
{
    observer *o = userdata;
    EXPECT(o->state != OBS_REJECTED, "destroy of an observer whose kk_observe was rejected");
    EXPECT(o->state == OBS_REMOVED, "destroy of an observer the model holds registered");
    EXPECT(o->has_destroy, "destroy called through an observer registered without one");
    EXPECT(!o->in_callback, "destroy ran while the observer's callback was running");
    EXPECT(o->destroyed == 0, "destroy called twice for token %llu", (unsigned long long)o->token);
    o->destroyed++;
}

static void on_change(kk_event event, const char *service, const char *account, kk_status status,
                      void *userdata)
{
    observer *o = userdata;
    EXPECT(o->state != OBS_REJECTED, "callback of an observer whose kk_observe was rejected");
    EXPECT(o->destroyed == 0, "callback after destroy");
    EXPECT(o->pending, "unexpected callback (token %llu, state %d): not an observer of "
           "this call's key, already called, or removed", (unsigned long long)o->token, o->state);
    o->pending = 0;
    TRACE("  callback observer=%d event=%d\n", (int)(o - observers), (int)event);
    EXPECT(event == o->want_event, "callback event %d, expected %d", (int)event, (int)o->want_event);
    EXPECT(status == KK_OK, "callback status %d on the memory backend", (int)status);
    EXPECT(service && strcmp(service, o->service) == 0, "callback service differs from the key's");
    EXPECT(account && strcmp(account, o->account) == 0, "callback account differs from the key's");

    o->in_callback = 1;
    handle *h = &handles[o->slot];
    if (o->mode == MODE_GET || o->mode == MODE_GET_UNOBSERVE)
        check_get(h, o->kc, o->service, o->account);
    if (o->mode == MODE_UNOBSERVE || o->mode == MODE_GET_UNOBSERVE ||
        o->mode == MODE_UNOBSERVE_TWICE) {
        if (o->state == OBS_LIVE) {
            o->state = OBS_REMOVED; /* before the call: destroy checks it */
            EXPECT_STATUS(kk_unobserve(o->kc, o->token), KK_OK, "kk_unobserve(own token) in a callback");
            EXPECT(o->destroyed == 0, "destroy ran inside kk_unobserve during the callback");
        }
        if (o->mode == MODE_UNOBSERVE_TWICE)
            EXPECT_STATUS(kk_unobserve(o->kc, o->token), KK_EINVAL, "second kk_unobserve(own token)");
    }
    o->in_callback = 0;
}

/** After a top-level call: every pending observer was called, and every
 *  removed observer with a destroy function was destroyed exactly once. */
static void check_observers(const char *what)
{
    for (int i = 0; i < MAX_OBSERVERS; i++) {
        observer *o = &observers[i];
        EXPECT(!o->pending, "%s did not call observer token %llu of its key", what,
               (unsigned long long)o->token);
        if (o->state == OBS_LIVE || o->state == OBS_REJECTED || o->state == OBS_FREE)
            EXPECT(o->destroyed == 0, "%s: destroy of a registered or rejected observer", what);
        else if (o->has_destroy)
            EXPECT(o->destroyed == 1, "%s: removed observer token %llu destroyed %d times", what,
                   (unsigned long long)o->token, o->destroyed);
    }
}

/** Marks the live observers of (slot, key) as due for exactly one call. */
static void expect_notification(int slot, const char *service, const char *account, kk_event event)
{
    for (int i = 0; i < MAX_OBSERVERS; i++) {
        observer *o = &observers[i];
        if (o->state == OBS_LIVE && o->slot == slot && o->generation == handles[slot].generation &&
            strcmp(o->service, service) == 0 && strcmp(o->account, account) == 0) {
            o->pending = 1;
            o->want_event = event;
        }
    }
}

/* ---- operations --------------------------------------------------------- */

enum { OP_OPEN, OP_CLOSE, OP_SET, OP_GET, OP_REMOVE, OP_OBSERVE, OP_UNOBSERVE, OP_CHECK, OP_COUNT };

static void close_slot(int slot)
{
    handle *h = &handles[slot];
    TRACE("kk_close slot=%d\n", slot);
    for (int i = 0; i < MAX_OBSERVERS; i++)
        if (observers[i].state == OBS_LIVE && observers[i].slot == slot &&
            observers[i].generation == h->generation)
            observers[i].state = OBS_REMOVED;
    kk_close(h->kc);
    h->kc = NULL;
    model_clear(h);
    check_observers("kk_close");
}

/** Every item of the model reads back exactly. */
static void check_all(int slot)
{
    handle *h = &handles[slot];
    for (size_t i = 0; i < h->count; i++)
        check_get(h, h->kc, h->items[i].service, h->items[i].account);
}

static void op_open(reader *r)
{
    uint8_t b = u8(r);
    int slot = b % MAX_HANDLES;
    if (b & 0x80) {
        EXPECT_STATUS(kk_open_memory(NULL), KK_EINVAL, "kk_open_memory(NULL)");
        return;
    }
    if (handles[slot].kc != NULL) close_slot(slot);
    TRACE("kk_open_memory slot=%d\n", slot);
    kk_keychain *kc = NULL;
    EXPECT_STATUS(kk_open_memory(&kc), KK_OK, "kk_open_memory");
    EXPECT(kc != NULL, "kk_open_memory returned KK_OK and no handle");
    handles[slot].kc = kc;
    handles[slot].generation = ++generations;
}

/** Picks a handle slot; returns its kk_keychain (NULL when the slot is
 *  closed or the input asks for a NULL handle). */
static kk_keychain *pick_handle(reader *r, int *slot)
{
    uint8_t b = u8(r);
    *slot = b % MAX_HANDLES;
    if (b % 16 == 15) return NULL;
    return handles[*slot].kc;
}

static void op_set(reader *r)
{
    int slot;
    kk_keychain *kc = pick_handle(r, &slot);
    char sbuf[MAX_STR], abuf[MAX_STR], svc[MAX_STR];
    const char *service = gen_str(r, sbuf), *account = gen_str(r, abuf);

    /* The value: real bytes (len within the buffer), or NULL with a length. */
    unsigned char *buf = NULL;
    const void *value = NULL;
    size_t len = 0;
    int value_ok = 1;
    switch (u8(r) % 8) {
    case 0: value = NULL; len = 0; break;                       /* empty value */
    case 1: value = NULL; len = 1 + u8(r); value_ok = 0; break; /* NULL, len > 0 */
    case 2: value = NULL; len = SIZE_MAX; value_ok = 0; break;
    case 3: value = NULL; len = KK_MAX_VALUE_SIZE + 1; value_ok = 0; break;
    case 4: {                                                   /* large, patterned */
        len = ((size_t)u8(r) + 1) * 1024;
        uint8_t fill = u8(r);
        buf = malloc(len);
        if (buf == NULL) abort();
        for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)(fill + i);
        value = buf;
        break;
    }
    default: {                                                  /* bytes of the input */
        len = u8(r) % 64;
        if (len > r->n) len = r->n;
        buf = malloc(len ? len : 1); /* exactly len: ASan sees any over-read */
        if (buf == NULL) abort();
        memcpy(buf, r->p, len);
        r->p += len;
        r->n -= len;
        value = buf;
        break;
    }
    }

    int ok = kc != NULL && value_ok && valid_key(service, account, svc);
    trace_call("kk_set", slot, kc, service, account);
    TRACE(" value=%s len=%zu -> expect %s\n", value ? "buf" : "NULL", len, ok ? "OK" : "EINVAL");
    if (ok) {
        model_set(&handles[slot], svc, account, value, len); /* callbacks read the new value */
        expect_notification(slot, svc, account, KK_EVENT_SET);
    }
    EXPECT_STATUS(kk_set(kc, service, account, value, len), ok ? KK_OK : KK_EINVAL, "kk_set");
    free(buf);
    check_observers("kk_set");
}

static void op_get(reader *r)
{
    int slot;
    kk_keychain *kc = pick_handle(r, &slot);
    char sbuf[MAX_STR], abuf[MAX_STR], svc[MAX_STR];
    const char *service = gen_str(r, sbuf), *account = gen_str(r, abuf);
    uint8_t variant = u8(r) % 4;
    int ok = kc != NULL && valid_key(service, account, svc);
    trace_call("kk_get", slot, kc, service, account);
    TRACE(" variant=%d (model: %s)\n", variant,
          !ok ? "invalid" : find_item(&handles[slot], svc, account) ? "present" : "absent");
    if (ok && variant == 0) {
        /* through the caller's spelling (maybe NULL), then the resolved one */
        check_get_as(&handles[slot], kc, svc, service, account);
        check_get(&handles[slot], kc, svc, account);
        return;
    }
    char *value = (char *)&value;
    size_t len = 0x5eed;
    kk_status want = KK_EINVAL;
    kk_status st;
    if (variant == 1) { /* out_value NULL */
        st = kk_get(kc, service, account, NULL, &len);
    } else {            /* out_len NULL is allowed */
        if (ok) want = find_item(&handles[slot], svc, account) ? KK_OK : KK_ENOTFOUND;
        st = kk_get(kc, service, account, &value, variant == 2 ? NULL : &len);
        if (st != KK_OK) EXPECT(value == NULL, "kk_get failed but left *out_value set");
        else kk_secret_free(value);
    }
    EXPECT_STATUS(st, want, "kk_get");
    if (st != KK_OK) EXPECT(len == 0x5eed, "kk_get failed but wrote *out_len");
}

static void op_remove(reader *r)
{
    int slot;
    kk_keychain *kc = pick_handle(r, &slot);
    char sbuf[MAX_STR], abuf[MAX_STR], svc[MAX_STR];
    const char *service = gen_str(r, sbuf), *account = gen_str(r, abuf);
    int ok = kc != NULL && valid_key(service, account, svc);
    trace_call("kk_remove", slot, kc, service, account);
    TRACE(" -> expect %s\n", ok ? "OK" : "EINVAL");
    if (ok) {
        model_remove(&handles[slot], svc, account); /* absent: still KK_OK */
        expect_notification(slot, svc, account, KK_EVENT_REMOVE);
    }
    EXPECT_STATUS(kk_remove(kc, service, account), ok ? KK_OK : KK_EINVAL, "kk_remove");
    check_observers("kk_remove");
}

static void op_observe(reader *r)
{
    int slot;
    kk_keychain *kc = pick_handle(r, &slot);
    char sbuf[MAX_STR], abuf[MAX_STR], svc[MAX_STR];
    const char *service = gen_str(r, sbuf), *account = gen_str(r, abuf);
    uint8_t flags = u8(r);
    observer *o = NULL;
    for (int i = 0; i < MAX_OBSERVERS && o == NULL; i++)
        if (observers[i].state == OBS_FREE) o = &observers[i];
    if (o == NULL) return; /* pool full: nothing to do */

    memset(o, 0, sizeof *o);
    o->mode = flags % MODE_COUNT_OF_MODES;
    o->has_destroy = !(flags & 0x08);
    int null_cb = (flags & 0x70) == 0x70, null_token = (flags & 0x70) == 0x60;
    int ok = kc != NULL && !null_cb && !null_token && valid_key(service, account, svc);
    o->slot = slot;
    o->generation = handles[slot].generation;
    o->kc = kc;
    if (ok) {
        snprintf(o->service, MAX_STR, "%s", svc);
        snprintf(o->account, MAX_STR, "%s", account);
    }
    o->state = OBS_REJECTED; /* until the library says otherwise */
    trace_call("kk_observe", slot, kc, service, account);
    TRACE(" observer=%d mode=%d destroy=%d cb=%s token=%s -> expect %s\n", (int)(o - observers),
          o->mode, o->has_destroy, null_cb ? "NULL" : "cb", null_token ? "NULL" : "ptr",
          ok ? "OK" : "EINVAL");
    uint64_t token = 0;
    kk_status st = kk_observe(kc, service, account, null_cb ? NULL : on_change, o,
                              o->has_destroy ? on_destroy : NULL, null_token ? NULL : &token);
    EXPECT_STATUS(st, ok ? KK_OK : KK_EINVAL, "kk_observe");
    if (st != KK_OK) return; /* stays REJECTED: any later callback or destroy aborts */
    EXPECT(token != 0, "kk_observe returned token 0");
    for (int i = 0; i < MAX_OBSERVERS; i++)
        EXPECT(!(observers[i].state == OBS_LIVE && observers[i].slot == slot &&
                 observers[i].generation == o->generation && observers[i].token == token),
               "kk_observe returned token %llu, which is live on the handle",
               (unsigned long long)token);
    o->token = token;
    o->state = OBS_LIVE;
    check_observers("kk_observe");
}

static void op_unobserve(reader *r)
{
    int slot;
    kk_keychain *kc = pick_handle(r, &slot);
    uint8_t b = u8(r);
    uint64_t token;
    if (b < 192) token = observers[b % MAX_OBSERVERS].token; /* maybe another handle's */
    else if (b < 224) token = 0;
    else token = u64(r);

    observer *target = NULL;
    if (kc != NULL)
        for (int i = 0; i < MAX_OBSERVERS; i++)
            if (observers[i].state == OBS_LIVE && observers[i].slot == slot &&
                observers[i].generation == handles[slot].generation && observers[i].token == token)
                target = &observers[i];
    if (target) target->state = OBS_REMOVED;
    TRACE("kk_unobserve slot=%d%s token=%llu -> expect %s\n", slot, kc ? "" : " kc=NULL",
          (unsigned long long)token, target ? "OK" : "EINVAL");
    EXPECT_STATUS(kk_unobserve(kc, token), target ? KK_OK : KK_EINVAL, "kk_unobserve");
    check_observers("kk_unobserve");
}

static void op_check(reader *r)
{
    int slot = u8(r) % MAX_HANDLES;
    if (handles[slot].kc != NULL) check_all(slot);
    kk_secret_free(NULL); /* accepted and ignored */
    kk_close(NULL);
}

/* ---- libFuzzer entry points -------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* The library's default service is argv[0]'s last non-empty path
     * component (header: "the program's name"). */
    const char *a0 = (*argc > 0 && (*argv)[0]) ? (*argv)[0] : "";
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", a0);
    size_t n = strlen(copy);
    while (n > 0 && copy[n - 1] == '/') copy[--n] = '\0';
    const char *slash = strrchr(copy, '/');
    const char *name = slash ? slash + 1 : copy;
    if (name[0] != '\0') snprintf(progname, sizeof progname, "%s", name);

    const char *ascii = getenv("KK_FUZZ_ASCII_KEYS");
    ascii_keys = ascii != NULL && strcmp(ascii, "1") == 0;
    const char *t = getenv("KK_FUZZ_TRACE");
    trace = t != NULL && strcmp(t, "1") == 0;
    if (ascii_keys) fprintf(stderr, "kk_fuzz: KK_FUZZ_ASCII_KEYS=1: non-ASCII keys are folded\n");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    TRACE("---- input of %zu bytes\n", size);
    memset(observers, 0, sizeof observers);
    while (r.n > 0) {
        switch (u8(&r) % OP_COUNT) {
        case OP_OPEN: op_open(&r); break;
        case OP_CLOSE: {
            int slot = u8(&r) % MAX_HANDLES;
            if (handles[slot].kc != NULL) close_slot(slot);
            break;
        }
        case OP_SET: op_set(&r); break;
        case OP_GET: op_get(&r); break;
        case OP_REMOVE: op_remove(&r); break;
        case OP_OBSERVE: op_observe(&r); break;
        case OP_UNOBSERVE: op_unobserve(&r); break;
        case OP_CHECK: op_check(&r); break;
        }
    }
    /* Every handle reads back its whole model, then closes: all destroy
     * functions must have run exactly once, and nothing stays allocated. */
    for (int slot = 0; slot < MAX_HANDLES; slot++) {
        if (handles[slot].kc == NULL) continue;
        check_all(slot);
        close_slot(slot);
    }
    return 0;
}
