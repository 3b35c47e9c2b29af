/* fuzz.c - pcaptool fuzz: a protocol's PDUs mutated (active/gw_fuzz.h) and
 * sent to a live implementation, one iteration a fresh connection, each
 * ended by a probe the text requires an answer to. What it finds:
 *   hang        the probe went unanswered while the connection stayed open
 *               (fresh connections are still answered)
 *   dead        after it, a fresh connection is not answered either (the
 *               implementation crashed, or stopped answering anyone)
 *   exit        (--exec) the implementation's process ended
 *   sanitizer   (--exec) a sanitizer report on its standard error
 *   bad-answer  an answer the decoder calls malformed (an error finding of
 *               the Malformed group: about the answer's bytes alone)
 * A connection the implementation ends after a mutation is its right (a
 * refusal of bad input), counted, not a failure. Each distinct failure (by
 * kind and mutated PDU) is minimised (the PDUs it does not need dropped,
 * as long as the failure stays and goes without the mutated PDU) and
 * written as a pcapng that pcaptool replay and pcaptool fuzz --reproduce
 * play again. The conform driver (conform.c) does the sockets, decoding
 * and recording. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "active/gw_fuzz.h"
#include "capture.h"
#include "conform.h"
#include "netparse.h"
#include "output.h"
#include "pcaptool.h"

#define MAX_FAILURES 64 /* distinct failures kept (kinds x PDUs: far fewer in practice) */
#define RAW_MAX 64      /* PDUs of ours a minimised or reproduced exchange may hold */
#define SHORTEN_TRIES 24 /* exchanges minimising may spend shortening the mutated PDU */
#define COME_MS 5000    /* --exec, a client: how long its process may take to connect before it is started again */

typedef enum { K_NONE, K_HANG, K_DEAD, K_EXIT, K_SANITIZER, K_BAD_ANSWER, N_KINDS } kind;
static const char *const kind_names[N_KINDS] = {"none", "hang", "dead", "exit", "sanitizer", "bad-answer"};

/* one PDU of ours to send again (minimising, --reproduce) */
typedef struct {
    GBytes *b;
    unsigned flags;   /* GW_FUZZ_* */
    unsigned answers; /* the implementation's PDUs that followed it the first time */
} raw_pdu;

/* what the iteration case runs: a mutation, or our PDUs again */
static struct {
    const gw_protocol *p;
    const gw_fuzz *fz;
    conform_driver *D;
    int transport; /* the catalogue's (GW_TRANSPORT_*) */
    bool stream;   /* it is TCP */
    /* a mutation */
    const gw_fuzz_target *t;
    uint64_t seed;
    char what[240];
    const char *probe;
    uint8_t m[4096];
    size_t mn;
    unsigned flags, before, after; /* the mutated PDU's recorded range [before, after) */
    unsigned probe_at;             /* the probe's index among the recorded PDUs */
    /* again */
    const raw_pdu *raw;
    unsigned n_raw;
} it;

/* d[0..n) as a PDU of ours goes (flags: GW_FUZZ_*); false when it could not */
static bool send_as(gw_conform_io *io, const uint8_t *d, size_t n, unsigned flags)
{
    bool link = flags & GW_FUZZ_LINK, ok = link ? io->send_link(io, d, n)
                                         : flags & GW_FUZZ_BYTEWISE ? conform_driver_send_bytewise(it.D, d, n)
                                                                    : io->send(io, d, n);
    if (ok && (flags & GW_FUZZ_TWICE))
        ok = link ? io->send_link(io, d, n) : io->send(io, d, n);
    return ok;
}

/* how many bytes the framing of the stream bytes d[0..n) claims: the
   PDUs it cuts them into, one after another (bytes appended start one of
   their own), up to the end of the last; n when they end on a boundary
   or the framing gives up (an invalid length: the implementation's
   reader decides what then) */
static long stream_claims(const int *opts, const uint8_t *d, size_t n)
{
    size_t at = 0;
    while (it.p->pdu_length && at < n) {
        if (n - at < it.p->pdu_header)
            return (long)(at + it.p->pdu_header); /* a header not even whole */
        long len = it.p->pdu_length(opts, d + at, n - at);
        if (len <= 0)
            return (long)n;
        at += (size_t)len;
    }
    return (long)(at > n ? at : n);
}

/* the type a PDU's items say (-1: none) */
static int64_t type_of(const gw_protocol *p, const gw_item *items, unsigned k)
{
    for (unsigned i = 0; i < k; i++)
        if (items[i].field == p->type_field && !(items[i].flags & GW_ITEM_GENERATED))
            return (int64_t)items[i].v.u;
    return -1;
}

/* d[0..n), a PDU of type `type` as it would go now, mutated and sent
   (over the link: `link`), then the probe: the iteration's verdict.
   `opening`: the PDU that opens the conversation (--from: the recording's
   first, ours), which mutated may be refused, leaving no conversation for
   the probe (DNP's connection request offering another protocol): its
   silence is then no hang */
static gw_verdict mutate_and_probe(gw_conform_io *io, const uint8_t *d, size_t n, int64_t type, bool link,
                                   bool opening)
{
    gw_item *items;
    unsigned k = conform_driver_items(it.D, d, n, &items);
    gw_rng r = {it.seed};
    bool stream = it.stream && !link;
    it.mn = gw_fuzz_mutate(&r, it.p, d, n, items, k, stream, it.m, sizeof it.m, it.what, sizeof it.what, &it.flags);
    if (link)
        it.flags |= GW_FUZZ_LINK;
    g_free(items);
    /* a mutation that made it another known PDU (DNP's unreliable message
       made a connection close) asks for what that PDU asks: silence may
       then be the implementation's right */
    const gw_field *tf = &it.p->fields[it.p->type_field];
    k = conform_driver_items(it.D, it.m, it.mn, &items);
    int64_t became = type_of(it.p, items, k);
    if (became < 0)
        became = type;
    g_free(items);
    bool other = became != type && tf->names && gw_value_name_of(tf->names, (uint32_t)became) &&
                 strcmp(gw_value_name_of(tf->names, (uint32_t)became), "Unknown") != 0;
    /* on a stream, a length that now claims more than was sent makes the
       probe that follows part of this PDU: its silence is then no hang */
    long claims = stream ? stream_claims(io->opts, it.m, it.mn) : 0;
    it.before = conform_driver_recorded(it.D);
    bool ok = send_as(io, it.m, it.mn, it.flags);
    it.after = conform_driver_recorded(it.D);
    if (!ok)
        return gw_conform_say(io, GW_INFO, "closed: the connection ended before the %s (%s) went", it.t->name, it.what);
    it.probe_at = conform_driver_recorded(it.D);
    switch (it.fz->probe(io, &it.probe)) {
    case GW_GOT:
        return gw_conform_say(io, GW_PASS, "after the %s (%s), %s was answered", it.t->name, it.what, it.probe);
    case GW_SILENT:
        if (claims > (long)it.mn)
            return gw_conform_say(io, GW_INFO, "the mutated %s's framing claims %ld bytes where %zu went (%s): %s went "
                                  "into it", it.t->name, claims, it.mn, it.what, it.probe);
        if (opening)
            return gw_conform_say(io, GW_INFO, "the mutated %s opened the conversation (%s): refused, it leaves "
                                  "none for %s", it.t->name, it.what, it.probe);
        if (other)
            return gw_conform_say(io, GW_INFO, "another PDU: the mutation made the %s a %s (%s), after which %s went "
                                  "unanswered", it.t->name, gw_value_name_of(tf->names, (uint32_t)became), it.what,
                                  it.probe);
        return gw_conform_say(io, GW_FAIL, "after the %s (%s), %s went unanswered within %.1f s while the connection "
                              "stayed open", it.t->name, it.what, it.probe, io->wait_ms / 1000.0);
    default:
        return gw_conform_say(io, GW_INFO, "closed: the implementation ended the connection after the %s (%s)",
                              it.t->name, it.what);
    }
}

static gw_verdict run_mutation(gw_conform_io *io)
{
    gw_verdict v = it.fz->enter(io, it.t->state);
    if (v != GW_PASS) {
        char was[sizeof io->outcome];
        g_strlcpy(was, io->outcome, sizeof was);
        return gw_conform_say(io, GW_SKIPPED, "unreached: could not bring the implementation to %s: %s",
                              it.fz->states[it.t->state], was[0] ? was : "it did not get there");
    }
    uint8_t d[2048];
    size_t n = it.fz->build ? it.fz->build(io, it.t, d, sizeof d) : it.p->build(io->opts, it.t->type, it.t->vals, d,
                                                                                 sizeof d);
    if (!n)
        return gw_conform_say(io, GW_SKIPPED, "pcaptool could not build its %s", it.t->name);
    return mutate_and_probe(io, d, n, it.t->type, it.t->link, false);
}

/* ---- --from CAPTURE: a recorded conversation, mutated ---------------------------- */

#define FROM_MAX 1024     /* PDUs of a recording kept */
#define FROM_PDU_MAX 4096 /* the longest PDU of ours kept (it.m's size) */

/* a PDU of the recording */
typedef struct {
    uint8_t *d;
    size_t n;
    bool ours, link;
    int64_t type;
    gw_item *items; /* as decoded (conform_driver_items) */
    unsigned n_items;
    unsigned live;  /* ours: how many PDUs the implementation sent after it in the first replay */
} from_pdu;

static struct {
    from_pdu pdus[FROM_MAX];
    unsigned n;
    gw_fuzz_target targets[FROM_MAX]; /* one per PDU of ours: what a failure is named by */
    char names[FROM_MAX][64];
    unsigned target_at[FROM_MAX]; /* target i is PDU target_at[i] */
    unsigned n_targets;
    const gw_replay *rp;
    unsigned at;   /* the PDU this iteration mutates; FROM_MAX: none (the first replay) */
    bool baseline; /* the first replay: learn how many PDUs come after each of ours */
} from;

static gw_replay_pdu from_view(const from_pdu *f, const uint8_t *d)
{
    return (gw_replay_pdu){.data = d, .len = f->n, .type = f->type, .transport = it.transport, .items = f->items,
                           .n_items = f->n_items};
}

/* Our side of the recording, adapted by the protocol's replay hooks (as
   pcaptool replay does: numbers and ids that must follow the live
   implementation), up to PDU from.at, which is mutated; after each of ours
   the implementation's PDUs the first replay saw are awaited (the first
   replay: as many as the recording has, the wait ending at a silence),
   and each is shown to the hooks; then the probe. */
static gw_verdict run_from(gw_conform_io *io)
{
    void *st = from.rp && from.rp->state_size ? g_malloc0(from.rp->state_size) : NULL;
    for (unsigned i = 0; st && from.rp->recorded && i < from.n; i++) {
        gw_replay_pdu v = from_view(&from.pdus[i], from.pdus[i].d);
        from.rp->recorded(st, &v, from.pdus[i].ours);
    }
    gw_verdict verdict = GW_PASS;
    bool done = false;
    for (unsigned i = 0; i < from.n && !done; i++) {
        from_pdu *f = &from.pdus[i];
        if (!f->ours)
            continue;
        uint8_t *d = g_memdup2(f->d, f->n);
        gw_replay_pdu v = from_view(f, d);
        if (st && from.rp->adapt)
            from.rp->adapt(st, &v, d);
        if (i == from.at) {
            verdict = mutate_and_probe(io, d, f->n, f->type, f->link, i == 0);
            g_free(d);
            done = true;
            break;
        }
        bool ok = send_as(io, d, f->n, f->link ? GW_FUZZ_LINK : 0);
        if (ok && st && from.rp->observe)
            from.rp->observe(st, &v, true);
        g_free(d);
        if (!ok) {
            verdict = gw_conform_say(io, GW_SKIPPED, "unreached: the connection ended before PDU %u of the recording "
                                     "went", i + 1);
            break;
        }
        /* the implementation's PDUs after it: the recording's, paired by
           type in order with the live ones for the hooks to learn from */
        unsigned want = 0, next = i + 1;
        for (unsigned j = i + 1; j < from.n && !from.pdus[j].ours; j++) {
            gw_replay_pdu rv = from_view(&from.pdus[j], from.pdus[j].d);
            /* what the hooks say may come or not (DNP's link updates) is
               not waited for */
            want += !(st && from.rp->need && from.rp->need(st, &rv) == GW_REPLAY_OPTIONAL);
        }
        if (!from.baseline)
            want = f->live;
        unsigned got = 0;
        for (; got < want; got++) {
            gw_replay_pdu a;
            gw_wait w = gw_conform_await(io, io->wait_ms, NULL, NULL, &a);
            if (w == GW_CLOSED) {
                verdict = gw_conform_say(io, GW_SKIPPED, "unreached: the implementation ended the connection after "
                                         "PDU %u of the recording", i + 1);
                done = true;
                break;
            }
            if (w == GW_SILENT)
                break;
            if (st && from.rp->observe)
                from.rp->observe(st, &a, false);
            for (unsigned j = next; j < from.n && !from.pdus[j].ours; j++)
                if (from.pdus[j].type == a.type) {
                    char why[200];
                    gw_replay_pdu rv = from_view(&from.pdus[j], from.pdus[j].d);
                    if (st && from.rp->match)
                        from.rp->match(st, &rv, &a, why, sizeof why);
                    next = j + 1;
                    break;
                }
        }
        if (from.baseline)
            f->live = got;
    }
    if (!done && from.baseline) { /* the whole conversation, unmutated, then the probe */
        switch (it.fz->probe(io, &it.probe)) {
        case GW_GOT:
            verdict = gw_conform_say(io, GW_PASS, "the recording replayed, %s was answered", it.probe);
            break;
        case GW_SILENT:
            verdict = gw_conform_say(io, GW_FAIL, "the recording replayed, %s went unanswered", it.probe);
            break;
        default:
            verdict = gw_conform_say(io, GW_FAIL, "the recording replayed, the connection ended at %s", it.probe);
        }
    }
    g_free(st);
    return verdict;
}

/* our PDUs again, each followed by as many of the implementation's as
   came the first time (an entry without bytes: what it sent before our
   first); the last is the probe, answered as the catalogue's
   replay_answer says (else by any PDU) */
static gw_verdict run_raw(gw_conform_io *io)
{
    gw_replay_pdu a;
    gw_conform_want want = NULL;
    unsigned wanted = it.fz->replay_answer ? it.fz->replay_answer(io->role, &want) : 1;
    for (unsigned i = 0; i < it.n_raw; i++) {
        gsize n = 0;
        const uint8_t *d = it.raw[i].b ? g_bytes_get_data(it.raw[i].b, &n) : NULL;
        bool last = i + 1 == it.n_raw;
        if (last)
            it.probe_at = conform_driver_recorded(it.D);
        unsigned ours = i + 1 - !it.raw[0].b; /* its number among ours */
        if (d && !send_as(io, d, n, it.raw[i].flags))
            return gw_conform_say(io, GW_INFO, "closed: the connection ended before PDU %u of ours went", ours);
        for (unsigned k = 0; k < (last ? wanted : it.raw[i].answers); k++) {
            gw_wait w = gw_conform_await(io, io->wait_ms, last ? want : NULL, NULL, &a);
            if (w == GW_CLOSED)
                return gw_conform_say(io, GW_INFO, "closed: the implementation ended the connection after PDU %u of "
                                      "ours", ours);
            if (w == GW_SILENT && last)
                return gw_conform_say(io, GW_FAIL, "the last PDU of ours (the probe) went unanswered within %.1f s "
                                      "while the connection stayed open", io->wait_ms / 1000.0);
            if (w == GW_SILENT)
                break;
        }
    }
    return gw_conform_say(io, GW_PASS, "the last PDU of ours (the probe) was answered");
}

static const gw_conform_case mutation_case = {"fuzz/mutation", GW_ROLE_SERVER | GW_ROLE_CLIENT, "A mutated PDU",
                                              "pcaptool fuzz", "", "", "", run_mutation, GW_OPEN};
static const gw_conform_case from_case = {"fuzz/from", GW_ROLE_SERVER | GW_ROLE_CLIENT, "A recorded PDU mutated",
                                          "pcaptool fuzz --from", "", "", "", run_from, GW_OPEN};
static const gw_conform_case again_case = {"fuzz/again", GW_ROLE_SERVER | GW_ROLE_CLIENT, "PDUs sent again",
                                           "pcaptool fuzz", "", "", "", run_raw, GW_OPEN};

/* ---- the implementation's process (--exec) ------------------------------- */

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct {
    const char *cmd;
    bool client;      /* it connects to us once and may end after: only a crash is a failure */
    pid_t pid;
    int err_fd;       /* its standard error, a file we read */
    off_t err_seen;
    char status[96];  /* how it ended */
    char report[512]; /* the sanitizer's first line */
} child;

static bool child_start(child *c)
{
    char tmpl[] = "/tmp/pcaptool-fuzz-stderr.XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return false;
    unlink(tmpl);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        return false;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(fd, 2);
        execl("/bin/sh", "sh", "-c", c->cmd, (char *)NULL);
        _exit(127);
    }
    c->pid = pid;
    c->err_fd = fd;
    c->err_seen = 0;
    return true;
}

static void child_stop(child *c)
{
    if (c->pid <= 0)
        return;
    kill(-c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    c->pid = 0;
    close(c->err_fd);
}

/* has it ended (status said), or reported (report said)? */
static kind child_check(child *c)
{
    if (c->pid <= 0)
        return K_NONE;
    char buf[4096];
    ssize_t n;
    kind k = K_NONE;
    while ((n = pread(c->err_fd, buf, sizeof buf - 1, c->err_seen)) > 0) {
        buf[n] = 0;
        static const char *const marks[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                                            "ThreadSanitizer", "MemorySanitizer"};
        for (size_t i = 0; i < G_N_ELEMENTS(marks) && k == K_NONE; i++) {
            const char *at = strstr(buf, marks[i]);
            if (at) {
                size_t len = strcspn(at, "\n");
                snprintf(c->report, sizeof c->report, "%.*s", (int)(len < 400 ? len : 400), at);
                k = K_SANITIZER;
            }
        }
        c->err_seen += n;
    }
    int st;
    if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
        /* sh -c reports a command killed by signal n as status 128 + n */
        int sig = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st) > 128 ? WEXITSTATUS(st) - 128 : 0;
        if (sig)
            snprintf(c->status, sizeof c->status, "killed by signal %d (%s)", sig, strsignal(sig));
        else
            snprintf(c->status, sizeof c->status, "exited with status %d", WEXITSTATUS(st));
        c->pid = 0;
        close(c->err_fd);
        /* a client ends when its connection does: a crash is the failure */
        if (k == K_NONE && (!c->client || sig))
            k = K_EXIT;
    }
    return k;
}

/* a client (--side server --exec): give it until ms to end on its own,
   then end it; what its end or its standard error said */
static kind child_settle(child *c, int ms)
{
    int64_t until = mono_ms() + ms;
    kind k = K_NONE;
    while (c->pid > 0 && k == K_NONE) {
        k = child_check(c);
        if (c->pid <= 0 || k != K_NONE || mono_ms() >= until)
            break;
        struct timespec step = {0, 2000000};
        nanosleep(&step, NULL); /* its end has no descriptor to wait on: polled, bounded by ms */
    }
    if (k == K_NONE && c->pid > 0) {
        k = child_check(c); /* a last look at its standard error */
        if (k == K_NONE && c->pid > 0) {
            kill(-c->pid, SIGKILL); /* it did not end: ours to end, no failure of its */
            waitpid(c->pid, NULL, 0);
            c->pid = 0;
            close(c->err_fd);
        }
    }
    return k;
}

/* ---- a run ---------------------------------------------------------------- */

typedef struct {
    kind k;
    const char *target; /* the mutated PDU's name */
    unsigned iteration, count;
    uint64_t seed;
    char what[240], outcome[400];
    conform_result minimal; /* the smallest exchange that still fails */
    unsigned probe_at;      /* its probe's index */
    bool minimised;
    size_t bytes, min_bytes; /* the mutated PDU's length as found, and in the minimal exchange */
    char file[512];
    gw_conform_case c; /* for the reports: the failure as a failed case */
    char id[96], title[160];
} failure;

typedef struct {
    const char *proto, *target, *out_dir, *junit, *html, *exec, *reproduce, *from;
    int side;
    double timeout, peer_wait, duration, rate;
    unsigned long iterations;
    uint64_t seed;
    out_format fmt;
    bool quiet, verbose;
} fuzz_args;

typedef struct {
    fuzz_args *a;
    const gw_protocol *p;
    conform_driver *D;
    child ch;
    unsigned role;
    failure f[MAX_FAILURES];
    unsigned n_f;
    unsigned iterations, closed, unreached, counts[N_KINDS];
    unsigned restarts; /* --exec clients started again for not coming */
} fuzzer;


static gw_verdict run_alive(gw_conform_io *io)
{
    if (it.fz->enter(io, 0) != GW_PASS)
        return GW_FAIL;
    const char *what;
    return it.fz->probe(io, &what) == GW_GOT ? GW_PASS : GW_FAIL;
}

static const gw_conform_case alive_case = {"fuzz/alive", GW_ROLE_SERVER | GW_ROLE_CLIENT, "Alive", "pcaptool fuzz",
                                           "", "", "", run_alive, GW_OPEN};

/* the implementation's process started, the one before it ended (stopped
   or reaped): what comes from the address and port the one before had is
   the new one's (a system may give it the same port) */
static bool start_process(fuzzer *z)
{
    conform_driver_peer_ended(z->D);
    return child_start(&z->ch);
}

/* case c on a fresh connection; a client of --exec's is started for it
   (one process a connection) and, once the case is over, given the
   --timeout to end: *k what its end said (K_NONE: nothing wrong) */
static int run_case(fuzzer *z, const gw_conform_case *c, conform_result *r, char *why, size_t whysz, kind *k)
{
    *k = K_NONE;
    bool client = z->a->exec && z->role == GW_ROLE_CLIENT;
    if (client && conform_driver_listen(z->D, why, whysz) != 0) { /* a client that finds no listener may not retry */
        *r = (conform_result){0};
        return -1;
    }
    if (client && z->ch.pid <= 0 && !start_process(z)) {
        snprintf(why, whysz, "--exec: could not start the implementation");
        *r = (conform_result){0};
        return -1;
    }
    /* a client process that has not connected within COME_MS, and has not
       died, is started afresh (Debian's OpenTTD 13.0 client now and then
       never tries its connection: nothing was sent to it yet), as long as
       --peer-wait lasts */
    int64_t until = mono_ms() + (int64_t)(z->a->peer_wait * 1000);
    while (client && !conform_driver_pending(z->D, COME_MS) && mono_ms() < until) {
        if ((*k = child_check(&z->ch)) != K_NONE) {
            *r = (conform_result){0};
            return 0;
        }
        child_stop(&z->ch);
        z->restarts++;
        if (!start_process(z)) {
            snprintf(why, whysz, "--exec: could not start the implementation");
            *r = (conform_result){0};
            return -1;
        }
    }
    int rc = conform_driver_run(z->D, c, r, why, whysz);
    if (client)
        *k = child_settle(&z->ch, (int)(z->a->timeout * 1000));
    return rc;
}

/* Is the implementation alive: a fresh connection brought to the first
   state answers the probe? */
static bool alive(fuzzer *z)
{
    conform_result r;
    char why[400];
    kind k;
    int rc = run_case(z, &alive_case, &r, why, sizeof why, &k);
    bool ok = rc == 0 && r.verdict == GW_PASS;
    conform_result_clear(&r);
    return ok;
}

/* with --exec: the implementation started (again) and answering; false
   when it does not come within --peer-wait */
static bool start_implementation(fuzzer *z)
{
    if (!z->a->exec)
        return true;
    child_stop(&z->ch);
    if (!start_process(z))
        return false;
    if (z->role == GW_ROLE_CLIENT)
        return true; /* it comes to us: each case waits for it (a process a case: run_case) */
    int64_t until = mono_ms() + (int64_t)(z->a->peer_wait * 1000);
    while (mono_ms() < until) {
        if (child_check(&z->ch) == K_EXIT)
            return false;
        if (alive(z))
            return true;
        struct timespec ts = {0, 50000000}; /* a port not yet open answers at once: poll its opening */
        nanosleep(&ts, NULL);
    }
    return false;
}

/* our PDUs of result r as a raw list: the mutated range [before, after)
   as the one mutated PDU it was sent as */
static unsigned raw_of(const conform_result *r, unsigned before, unsigned after, unsigned probe_at, const uint8_t *m,
                       size_t mn, unsigned flags, raw_pdu *raw, unsigned *mutated)
{
    unsigned n = 0;
    *mutated = RAW_MAX;
    for (guint i = 0; r->pdus && i < r->pdus->len && n < RAW_MAX; i++) {
        const conform_pdu *q = &g_array_index(r->pdus, conform_pdu, i);
        if (i > probe_at && q->ours)
            break; /* what the case's end sent (DNP's close): not the exchange */
        if (!q->ours) {
            if (!n) /* it spoke first: what came before our first PDU */
                raw[n++] = (raw_pdu){NULL, 0, 0};
            raw[n - 1].answers++;
            continue;
        }
        if (i >= before && i < after) {
            if (i > before)
                continue; /* the rest of the mutated write */
            *mutated = n;
            raw[n++] = (raw_pdu){g_bytes_new(m, mn), flags, 0};
            if (flags & GW_FUZZ_TWICE)
                i++; /* its second copy goes with it */
            continue;
        }
        raw[n++] = (raw_pdu){g_bytes_new(q->data, q->len), q->transport != it.transport ? GW_FUZZ_LINK : 0, 0};
    }
    return n;
}

static void raw_free(raw_pdu *raw, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        g_bytes_unref(raw[i].b);
}

/* what one run of case c found: the kind, the outcome in *r */
static kind judge(fuzzer *z, const gw_conform_case *c, conform_result *r, int *rc, char *why, size_t whysz)
{
    kind k;
    *rc = run_case(z, c, r, why, whysz, &k);
    if (k != K_NONE || (k = child_check(&z->ch)) != K_NONE)
        return k;
    if (*rc != 0)
        return K_DEAD; /* nothing listens there any more */
    for (guint i = 0; i < r->pdus->len; i++) {
        const conform_pdu *q = &g_array_index(r->pdus, conform_pdu, i);
        for (guint j = 0; !q->ours && j < q->findings->len; j++) {
            const gw_finding_def *d = &z->p->findings[g_array_index(q->findings, conform_finding, j).finding];
            if (d->severity == GW_SEV_ERROR && d->group == GW_GROUP_MALFORMED)
                return K_BAD_ANSWER;
        }
    }
    if (r->verdict == GW_PASS)
        return K_NONE;
    bool up = alive(z);
    if ((k = child_check(&z->ch)) != K_NONE)
        return k;
    /* a process of --exec's that answers nobody may be ending (a core
       being written): its end is the better report, if it comes within
       the --timeout */
    for (int64_t until = mono_ms() + (int64_t)(z->a->timeout * 1000); !up && z->ch.pid > 0 && mono_ms() < until;) {
        struct timespec step = {0, 5000000};
        nanosleep(&step, NULL); /* its end has no descriptor to wait on: polled, bounded */
        if ((k = child_check(&z->ch)) != K_NONE)
            return k;
    }
    if (!up)
        return K_DEAD;
    return r->verdict == GW_FAIL ? K_HANG : K_NONE;
}

/* our PDUs raw[0..n) sent again: the kind found, the exchange in *r */
static kind again(fuzzer *z, const raw_pdu *raw, unsigned n, conform_result *r)
{
    it.raw = raw;
    it.n_raw = n;
    int rc;
    char why[400];
    kind k = judge(z, &again_case, r, &rc, why, sizeof why);
    if (k == K_DEAD || k == K_EXIT || k == K_SANITIZER)
        start_implementation(z);
    return k;
}

/* Minimise failure f, found on result r: drop each PDU of ours but the
   mutated one and the probe while the same kind still comes, and does not
   without the mutated PDU. f->minimal: the last exchange that failed. */
static void minimise(fuzzer *z, failure *f, const conform_result *r)
{
    raw_pdu raw[RAW_MAX], trial[RAW_MAX];
    unsigned mutated, n = raw_of(r, it.before, it.after, it.probe_at, it.m, it.mn, it.flags, raw, &mutated);
    f->minimal = (conform_result){0};
    if (z->a->exec && z->role == GW_ROLE_SERVER && z->ch.pid <= 0)
        start_implementation(z); /* it ended with the failure: again for the exchanges below */
    if (mutated == RAW_MAX || n < 2) {
        raw_free(raw, n);
        return;
    }
    conform_result x;
    if (again(z, raw, n, &x) != f->k) { /* not reproducible on its own: kept as found */
        conform_result_clear(&x);
        raw_free(raw, n);
        return;
    }
    f->minimal = x;
    f->probe_at = it.probe_at;
    f->minimised = true;
    for (int drop = (int)n - 2; drop >= 0; drop--) {
        if ((unsigned)drop == mutated || !raw[drop].b)
            continue; /* (an entry without bytes: the wait for what the implementation sends first) */
        unsigned m = 0, mm = 0;
        for (unsigned i = 0; i < n; i++)
            if (i != (unsigned)drop) {
                if (i == mutated)
                    mm = m;
                trial[m++] = raw[i];
            }
        conform_result y, w;
        bool fails = again(z, trial, m, &y) == f->k;
        unsigned y_probe = it.probe_at;
        bool needs = false;
        if (fails) { /* and the mutated PDU is what does it */
            raw_pdu control[RAW_MAX];
            unsigned c = 0;
            for (unsigned i = 0; i < m; i++)
                if (i != mm)
                    control[c++] = trial[i];
            needs = again(z, control, c, &w) == K_NONE;
            conform_result_clear(&w);
        }
        if (fails && needs) {
            g_bytes_unref(raw[drop].b);
            memmove(raw + drop, raw + drop + 1, (n - (unsigned)drop - 1) * sizeof *raw);
            n--;
            if ((unsigned)drop < mutated)
                mutated--;
            conform_result_clear(&f->minimal);
            f->minimal = y;
            f->probe_at = y_probe;
        } else {
            conform_result_clear(&y);
        }
    }
    /* then the mutated PDU shortened (its texts and byte fields emptied,
       its end cut: gw_fuzz_shorten) while the same failure still comes,
       each shorter one tried afresh; at most SHORTEN_TRIES exchanges */
    const int *opts = conform_driver_io(z->D)->opts;
    bool stream = it.stream && !(raw[mutated].flags & GW_FUZZ_LINK);
    for (unsigned which = 0, tries = 0; tries < SHORTEN_TRIES; tries++) {
        gsize cl;
        const uint8_t *cd = g_bytes_get_data(raw[mutated].b, &cl);
        uint8_t out[sizeof it.m];
        char what[160];
        gw_item *items;
        unsigned k = conform_driver_items(z->D, cd, cl, &items);
        size_t len = cl <= sizeof out ? gw_fuzz_shorten(z->p, opts, cd, cl, items, k, stream, which, out, what,
                                                        sizeof what) : 0;
        int64_t type = type_of(z->p, items, k);
        g_free(items);
        if (!len)
            break;
        k = conform_driver_items(z->D, out, len, &items);
        bool same = type_of(z->p, items, k) == type;
        g_free(items);
        if (!same) { /* another PDU now (silence after it may be its right): not this failure's */
            which++;
            continue;
        }
        raw_pdu was = raw[mutated];
        raw[mutated].b = g_bytes_new(out, len);
        conform_result y;
        if (again(z, raw, n, &y) == f->k) {
            g_bytes_unref(was.b);
            conform_result_clear(&f->minimal);
            f->minimal = y;
            f->probe_at = it.probe_at;
            f->min_bytes = len;
            which = 0; /* the shorter one's candidates, from the first */
        } else {
            conform_result_clear(&y);
            g_bytes_unref(raw[mutated].b);
            raw[mutated] = was;
            which++;
        }
    }
    raw_free(raw, n);
}

static void file_name(char *out, size_t n, const char *dir, kind k, const char *target)
{
    char t[64];
    size_t j = 0;
    for (const char *c = target; *c && j + 1 < sizeof t; c++)
        t[j++] = g_ascii_isalnum(*c) ? *c : '-';
    t[j] = 0;
    size_t d = strlen(dir);
    while (d > 1 && dir[d - 1] == '/')
        d--;
    snprintf(out, n, "%.*s/%s-%s.pcapng", (int)d, dir, kind_names[k], t);
}

/* the reports' view of the failures: a failed case each, its minimal
   exchange (or the one it was found on) */
static conform_run as_run(fuzzer *z, const char *command, const char *started, conform_result *results)
{
    conform_run run = {.p = z->p, .role = z->role, .target = z->a->target, .results = results, .n = z->n_f,
                       .done = z->n_f, .command = command, .subcommand = "fuzz"};
    g_strlcpy(run.started, started, sizeof run.started);
    for (unsigned i = 0; i < z->n_f; i++) {
        results[i] = z->f[i].minimal;
        results[i].c = &z->f[i].c;
        results[i].verdict = GW_FAIL;
        g_strlcpy(results[i].outcome, z->f[i].outcome, sizeof results[i].outcome);
        run.count[GW_FAIL]++;
        run.failed++;
    }
    return run;
}

static void record_failure(fuzzer *z, kind k, unsigned iteration, conform_result *r, const char *extra)
{
    unsigned found_probe = it.probe_at; /* (minimising runs other exchanges) */
    z->counts[k]++;
    for (unsigned i = 0; i < z->n_f; i++)
        if (z->f[i].k == k && strcmp(z->f[i].target, it.t->name) == 0) {
            z->f[i].count++;
            conform_result_clear(r);
            return;
        }
    if (z->n_f == MAX_FAILURES) {
        conform_result_clear(r);
        return;
    }
    failure *f = &z->f[z->n_f++];
    *f = (failure){.k = k, .target = it.t->name, .iteration = iteration, .count = 1, .seed = it.seed, .bytes = it.mn,
                   .min_bytes = it.mn};
    g_strlcpy(f->what, it.what, sizeof f->what);
    g_strlcpy(f->outcome, r->outcome, sizeof f->outcome);
    if (extra) {
        g_strlcat(f->outcome, "; ", sizeof f->outcome);
        g_strlcat(f->outcome, extra, sizeof f->outcome);
    }
    snprintf(f->id, sizeof f->id, "fuzz/%s/%s", kind_names[k], it.t->name);
    snprintf(f->title, sizeof f->title, "%s after a mutated %s", kind_names[k], it.t->name);
    f->c = (gw_conform_case){f->id, GW_ROLE_SERVER | GW_ROLE_CLIENT, f->title, "pcaptool fuzz", f->what,
                             "the PDUs of the minimal exchange", "an answer to the probe, on a connection that stays "
                             "usable", NULL, GW_OPEN};
    if (k == K_HANG || k == K_BAD_ANSWER || z->a->exec)
        minimise(z, f, r);
    if (!f->minimised) {
        f->minimal = *r;
        f->probe_at = found_probe;
    } else {
        conform_result_clear(r);
    }
    /* the exchange ends with the probe and its answers: what the case's end
       sent after it (DNP's close) is no part of it */
    for (guint i = f->probe_at + 1; f->minimal.pdus && i < f->minimal.pdus->len; i++)
        if (g_array_index(f->minimal.pdus, conform_pdu, i).ours) {
            conform_result_truncate(&f->minimal, i);
            break;
        }
}

static void text_failure(FILE *out, const failure *f)
{
    char shorter[96] = "";
    if (f->min_bytes < f->bytes)
        snprintf(shorter, sizeof shorter, ", the mutated PDU shortened from %zu to %zu bytes", f->bytes, f->min_bytes);
    fprintf(out, "FAIL  %-10s %s: %s (iteration %u, %u time%s%s)%s%s\n", kind_names[f->k], f->target, f->outcome,
            f->iteration, f->count, f->count == 1 ? "" : "s", shorter, f->file[0] ? " -> " : "", f->file);
}

static void json_failure(FILE *out, const failure *f)
{
    fprintf(out, "{\"failure\":\"%s\",\"pdu\":", kind_names[f->k]);
    out_json_string(out, (const uint8_t *)f->target, strlen(f->target));
    fputs(",\"mutation\":", out);
    out_json_string(out, (const uint8_t *)f->what, strlen(f->what));
    fputs(",\"outcome\":", out);
    out_json_string(out, (const uint8_t *)f->outcome, strlen(f->outcome));
    fprintf(out, ",\"iteration\":%u,\"count\":%u,\"minimised\":%s,\"pdus\":%u,\"pdu_bytes\":%zu,\"minimal_pdu_bytes\":%zu,"
            "\"reproducer\":", f->iteration, f->count, f->minimised ? "true" : "false",
            f->minimal.pdus ? f->minimal.pdus->len : 0, f->bytes, f->min_bytes);
    if (f->file[0])
        out_json_string(out, (const uint8_t *)f->file, strlen(f->file));
    else
        fputs("null", out);
    fputs("}\n", out);
}

/* ---- --reproduce ------------------------------------------------------------ */

/* our PDUs of a reproducer: the payloads sent by the side that sent first
   (pcaptool, when the implementation serves) or the other */
static unsigned raw_of_capture(const char *path, bool we_first, raw_pdu *raw, char *why, size_t whysz)
{
    char err[256];
    cap_reader *cr = cap_open_file(path, err, sizeof err);
    if (!cr) {
        snprintf(why, whysz, "%s: %s", path, err);
        return 0;
    }
    cap_record rec;
    net_packet pk;
    uint8_t first[16];
    uint16_t first_port = 0;
    bool have = false;
    unsigned n = 0;
    while (cap_next(cr, &rec) == 1 && n < RAW_MAX) {
        if (net_parse(rec.linktype, rec.data, rec.caplen, &pk) != NET_OK)
            continue;
        if (!have) { /* the first packet's sender (a TCP SYN's: the client) */
            memcpy(first, pk.src, sizeof first);
            first_port = pk.sport;
            have = true;
        }
        if (!pk.payload_len)
            continue;
        bool from_first = pk.sport == first_port && memcmp(pk.src, first, sizeof first) == 0;
        /* a datagram beside a TCP conversation: the catalogue's link */
        bool link = it.stream && pk.l4 == NET_UDP;
        if (from_first == we_first) {
            raw[n++] = (raw_pdu){g_bytes_new(pk.payload, pk.payload_len), link ? GW_FUZZ_LINK : 0, 0};
        } else {
            if (!n) /* the implementation spoke first */
                raw[n++] = (raw_pdu){NULL, 0, 0};
            raw[n - 1].answers++;
        }
    }
    cap_close(cr);
    if (n && !raw[n - 1].b) {
        raw_free(raw, n);
        n = 0;
    }
    if (!n)
        snprintf(why, whysz, "%s: no PDU of pcaptool's side in it", path);
    return n;
}

/* ---- --from: the recording read ----------------------------------------------------- */

static void from_add(conform_driver *D, const gw_protocol *p, const uint8_t *d, size_t n, bool ours, bool link)
{
    if (from.n == FROM_MAX || !n)
        return;
    from_pdu *f = &from.pdus[from.n++];
    *f = (from_pdu){.d = g_memdup2(d, n), .n = n, .ours = ours, .link = link, .type = -1};
    f->n_items = conform_driver_items(D, f->d, n, &f->items);
    f->type = type_of(p, f->items, f->n_items);
}

static void from_free(void)
{
    for (unsigned i = 0; i < from.n; i++) {
        g_free(from.pdus[i].d);
        g_free(from.pdus[i].items);
    }
    from.n = 0;
}

/* The first conversation of CAPTURE (the endpoints of its first packet,
   both ways), cut into PDUs (a stream's by the protocol's framing, in the
   order the segments completing them came; a datagram is one), ours those
   of the side that sent first (pcaptool as client) or the other. Returns
   the number of PDUs of ours; 0 with why said. */
static unsigned from_load(conform_driver *D, const gw_protocol *p, const int *opts, const char *path, bool we_first,
                          char *why, size_t whysz)
{
    char err[256];
    cap_reader *cr = cap_open_file(path, err, sizeof err);
    if (!cr) {
        snprintf(why, whysz, "--from %s: %s", path, err);
        return 0;
    }
    cap_record rec;
    net_packet pk;
    uint8_t a[16], b[16];
    uint16_t ap = 0, bp = 0;
    bool have = false;
    GByteArray *buf[2] = {g_byte_array_new(), g_byte_array_new()}; /* a stream's bytes not yet a whole PDU */
    while (cap_next(cr, &rec) == 1 && from.n < FROM_MAX) {
        if (net_parse(rec.linktype, rec.data, rec.caplen, &pk) != NET_OK)
            continue;
        if (!have) { /* the conversation: the first packet's ends (a TCP SYN's sender: the client) */
            memcpy(a, pk.src, 16);
            memcpy(b, pk.dst, 16);
            ap = pk.sport;
            bp = pk.dport;
            have = true;
        }
        bool from_a = pk.sport == ap && pk.dport == bp && !memcmp(pk.src, a, 16) && !memcmp(pk.dst, b, 16);
        bool from_b = pk.sport == bp && pk.dport == ap && !memcmp(pk.src, b, 16) && !memcmp(pk.dst, a, 16);
        if ((!from_a && !from_b) || !pk.payload_len)
            continue;
        bool ours = from_a == we_first, link = it.stream && pk.l4 == NET_UDP;
        if (pk.l4 != NET_TCP || !p->pdu_length) {
            from_add(D, p, pk.payload, pk.payload_len, ours, link);
            continue;
        }
        GByteArray *s = buf[from_a];
        g_byte_array_append(s, pk.payload, (guint)pk.payload_len);
        while (s->len >= p->pdu_header) {
            long len = p->pdu_length(opts, s->data, s->len);
            if (len <= 0 || len > 1 << 20) { /* the framing gives up: the rest as one */
                from_add(D, p, s->data, s->len, ours, false);
                g_byte_array_set_size(s, 0);
                break;
            }
            if ((size_t)len > s->len)
                break;
            from_add(D, p, s->data, (size_t)len, ours, false);
            g_byte_array_remove_range(s, 0, (guint)len);
        }
    }
    cap_close(cr);
    g_byte_array_free(buf[0], TRUE);
    g_byte_array_free(buf[1], TRUE);
    /* the conversation as far as our PDU that ends it in band (DNP's
       close): after it, no probe could be answered */
    void *st = from.rp && from.rp->closes ? g_malloc0(from.rp->state_size ? from.rp->state_size : 1) : NULL;
    for (unsigned i = 0; st && i < from.n; i++) {
        gw_replay_pdu v = from_view(&from.pdus[i], from.pdus[i].d);
        if (from.pdus[i].ours && from.rp->closes(st, &v)) {
            for (unsigned j = i; j < from.n; j++) {
                g_free(from.pdus[j].d);
                g_free(from.pdus[j].items);
            }
            from.n = i;
        }
    }
    g_free(st);
    from.n_targets = 0;
    for (unsigned i = 0; i < from.n; i++) {
        const from_pdu *f = &from.pdus[i];
        if (!f->ours || f->n > FROM_PDU_MAX)
            continue;
        const gw_field *tf = &p->fields[p->type_field];
        const char *tn = f->type >= 0 && tf->names ? gw_value_name_of(tf->names, (uint32_t)f->type) : NULL;
        snprintf(from.names[from.n_targets], sizeof from.names[0], "recorded PDU %u (%s)", i + 1, tn ? tn : "?");
        from.targets[from.n_targets] = (gw_fuzz_target){from.names[from.n_targets], 0, f->type, NULL, 0, f->link};
        from.target_at[from.n_targets++] = i;
    }
    if (!from.n_targets)
        snprintf(why, whysz, "--from %s: no PDU of pcaptool's side (as %s) in its first conversation", path,
                 we_first ? "client" : "server");
    return from.n_targets;
}

/* ---- the command ------------------------------------------------------------- */

enum { O_PROTO = 256, O_SEED, O_DURATION, O_ITERATIONS, O_TIMEOUT, O_PEER_WAIT, O_JUNIT, O_HTML, O_EXEC, O_REPRODUCE,
       O_RATE, O_FROM };

static void fuzz_usage(FILE *f)
{
    fputs("Usage: pcaptool fuzz --proto PROTO --target HOST:PORT [OPTIONS]\n"
          "       pcaptool fuzz --proto PROTO --target HOST:PORT --reproduce FILE\n"
          "\n"
          "Send a live implementation of PROTO its own PDUs, built from the decoder's\n"
          "layouts and mutated where the decoder says the numbers and lengths are, one\n"
          "iteration a fresh connection brought into a state worth attacking by the\n"
          "code conform uses; each iteration ends with a probe the text requires an\n"
          "answer to. Reports each distinct failure (by kind and mutated PDU) with a\n"
          "minimal exchange, written as a pcapng that pcaptool replay and --reproduce\n"
          "play again. Deterministic for a --seed.\n"
          "\n"
          "      --proto PROTO          the protocol (DNP, OpenTTD, GNE, EOUDP, OpenDrakan)\n"
          "  -t, --target HOST:PORT     the implementation (as for conform; nothing else is\n"
          "                             ever sent to)\n"
          "  -s, --side client|server   the side pcaptool plays (default client); as server,\n"
          "                             the implementation connects once per iteration\n"
          "      --seed N               the run's seed (default 1): the same seed, the same\n"
          "                             mutations in the same order\n"
          "      --iterations N         stop after N iterations\n"
          "      --duration SECONDS     stop after this long (default 60, unless --iterations)\n"
          "      --rate N               at most N iterations a second (default 200)\n"
          "      --timeout SECONDS      longest wait for an answer (default 2)\n"
          "      --peer-wait SECONDS    how long the implementation may take to come or to\n"
          "                             start (default 30)\n"
          "      --exec CMD             start the implementation with sh -c CMD, restart it\n"
          "                             when it ends, and report its end and any sanitizer\n"
          "                             report on its standard error (a client: one process\n"
          "                             a connection, only its death by a signal fails)\n"
          "  -w, --out DIR              write each failure's minimal exchange as\n"
          "                             DIR/KIND-PDU.pcapng\n"
          "      --from CAPTURE         mutate a recorded conversation (its first): each\n"
          "                             iteration replays pcaptool's side of it, adapted as\n"
          "                             pcaptool replay adapts it, up to a PDU chosen by the\n"
          "                             seed, mutates that PDU, then probes\n"
          "      --reproduce FILE       send pcaptool's side of FILE (a reproducer) again and\n"
          "                             say whether it still fails\n"
          "  -T, --format text|json     a line per failure and a summary, or JSON Lines\n"
          "      --junit FILE           also JUnit XML (a failed test case per failure)\n"
          "      --html FILE            also the HTML page conform writes, a failure a case\n"
          "  -q, --quiet                no text report\n"
          "\n"
          "Failures: hang (the probe unanswered on an open connection), dead (a fresh\n"
          "connection unanswered too), exit and sanitizer (--exec), bad-answer (an answer\n"
          "the decoder calls malformed). A connection the implementation ends after a\n"
          "mutation is counted, not a failure: refusing bad input is its right.\n"
          "\n"
          "Exit codes: 0 no failure (--reproduce: it no longer fails); 1 a failure (--reproduce:\n"
          "it still fails); 2 usage error, a target that cannot be reached, or output that\n"
          "could not be written.\n",
          f);
}

static int fuzz_opt(void *ctx, int c, const char *arg)
{
    fuzz_args *a = ctx;
    char *end;
    switch (c) {
    case O_PROTO: a->proto = arg; return 0;
    case 't': a->target = arg; return 0;
    case 's': return cli_side_arg(arg, &a->side);
    case O_SEED:
        a->seed = g_ascii_strtoull(arg, &end, 0);
        return *end || !*arg ? cli_usage_error("--seed takes a number, not '%s'", arg) : 0;
    case O_ITERATIONS:
        a->iterations = strtoul(arg, &end, 10);
        return *end || !a->iterations ? cli_usage_error("--iterations takes a number above 0, not '%s'", arg) : 0;
    case O_DURATION: case O_TIMEOUT: case O_PEER_WAIT: case O_RATE: {
        double v = strtod(arg, &end);
        if (*end || !(v > 0 && v <= 86400))
            return cli_usage_error("takes a number above 0, not '%s'", arg);
        *(c == O_DURATION ? &a->duration : c == O_TIMEOUT ? &a->timeout : c == O_PEER_WAIT ? &a->peer_wait
                                                                                           : &a->rate) = v;
        return 0;
    }
    case O_EXEC: a->exec = arg; return 0;
    case O_REPRODUCE: a->reproduce = arg; return 0;
    case O_FROM: a->from = arg; return 0;
    case 'w': a->out_dir = arg; return 0;
    case O_JUNIT: a->junit = arg; return 0;
    case O_HTML: a->html = arg; return 0;
    case 'T': return parse_format(arg, &a->fmt) ? 0 : cli_usage_error("--format takes text or json, not '%s'", arg);
    case 'q': a->quiet = true; return 0;
    default: return EXIT_USAGE;
    }
}

static int reproduce(fuzzer *z)
{
    raw_pdu raw[RAW_MAX];
    char why[400];
    unsigned n = raw_of_capture(z->a->reproduce, z->role == GW_ROLE_SERVER, raw, why, sizeof why);
    if (!n) {
        fprintf(stderr, "pcaptool: %s\n", why);
        return EXIT_USAGE;
    }
    if (!start_implementation(z)) {
        fprintf(stderr, "pcaptool: --exec: the implementation did not start answering within %g s\n",
                z->a->peer_wait);
        raw_free(raw, n);
        return EXIT_USAGE;
    }
    conform_result r;
    it.raw = raw;
    it.n_raw = n;
    n -= !raw[0].b; /* what the implementation sent first is no PDU of ours */
    int rc;
    kind k = judge(z, &again_case, &r, &rc, why, sizeof why);
    FILE *out = cli_report;
    if (z->a->fmt == OUT_JSON) {
        printf("{\"reproduce\":");
        out_json_string(stdout, (const uint8_t *)z->a->reproduce, strlen(z->a->reproduce));
        printf(",\"pdus\":%u,\"failure\":%s%s%s,\"outcome\":", n, k ? "\"" : "", k ? kind_names[k] : "null",
               k ? "\"" : "");
        const char *o = rc ? why : r.outcome;
        out_json_string(stdout, (const uint8_t *)o, strlen(o));
        printf("}\n");
    } else if (out) {
        fprintf(out, "%s: %u PDUs of pcaptool's sent again: %s%s (%s)\n", z->a->reproduce, n,
                k ? "still fails: " : "no failure", k ? kind_names[k] : "", rc ? why : r.outcome);
    }
    conform_result_clear(&r);
    raw_free(raw, n);
    child_stop(&z->ch);
    return k ? EXIT_FINDINGS : EXIT_CLEAN;
}

static int run_fuzz(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"proto", required_argument, NULL, O_PROTO},
        {"target", required_argument, NULL, 't'},
        {"side", required_argument, NULL, 's'},
        {"seed", required_argument, NULL, O_SEED},
        {"iterations", required_argument, NULL, O_ITERATIONS},
        {"duration", required_argument, NULL, O_DURATION},
        {"rate", required_argument, NULL, O_RATE},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"peer-wait", required_argument, NULL, O_PEER_WAIT},
        {"exec", required_argument, NULL, O_EXEC},
        {"reproduce", required_argument, NULL, O_REPRODUCE},
        {"from", required_argument, NULL, O_FROM},
        {"out", required_argument, NULL, 'w'},
        {"junit", required_argument, NULL, O_JUNIT},
        {"html", required_argument, NULL, O_HTML},
        {"format", required_argument, NULL, 'T'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const cli_spec spec = {"t:s:w:T:q", longopts, CLI_RUN, fuzz_opt, fuzz_usage};
    fuzz_args a = {.timeout = 2, .peer_wait = 30, .rate = 200, .seed = 1, .fmt = OUT_TEXT};
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &a, &cc);
    if (rc != CLI_GO)
        return rc;
    if (optind != argc)
        return cli_usage_error("takes no operands");
    if (!a.proto || !a.target)
        return cli_usage_error("needs --proto PROTO and --target HOST:PORT");
    const gw_protocol *p = gw_protocol_by_name(a.proto);
    if (!p)
        return cli_usage_error("no protocol '%s' (pcaptool fields lists them)", a.proto);
    const gw_conform *cf = gw_conform_of(p);
    if (!cf || !cf->fuzz)
        return cli_usage_error("%s is not fuzzed yet", p->short_name);
    if (a.out_dir && g_mkdir_with_parents(a.out_dir, 0755) != 0)
        return cli_usage_error("--out %s: %s", a.out_dir, strerror(errno));
    if (!a.iterations && !a.duration)
        a.duration = 60;
    fuzzer *z = g_new0(fuzzer, 1);
    z->a = &a;
    z->p = p;
    z->role = a.side ? GW_ROLE_CLIENT : GW_ROLE_SERVER;
    z->ch.cmd = a.exec;
    z->ch.client = z->role == GW_ROLE_CLIENT;
    z->D = conform_driver_new(p, cf, run_opts(&cc.ro, p), a.target, z->role, a.timeout, a.peer_wait, NULL, 0);
    conform_driver_no_audit(z->D);
    /* the PDUs that go to an implementation in its role */
    const gw_fuzz_target *targets[64];
    unsigned n_targets = 0;
    for (unsigned i = 0; i < cf->fuzz->n_targets && n_targets < G_N_ELEMENTS(targets); i++)
        if (!cf->fuzz->targets[i].roles || (cf->fuzz->targets[i].roles & z->role))
            targets[n_targets++] = &cf->fuzz->targets[i];
    if (!n_targets) {
        conform_driver_free(z->D);
        g_free(z);
        return cli_usage_error("%s has nothing to fuzz with pcaptool as %s", p->short_name,
                               a.side ? "server" : "client");
    }
    it = (__typeof__(it)){.p = p, .fz = cf->fuzz, .D = z->D, .transport = cf->transport,
                          .stream = cf->transport == GW_TRANSPORT_TCP, .t = targets[0]};
    if (a.from && !a.reproduce) {
        char why[400];
        from.rp = gw_replay_of(p);
        if (!from_load(z->D, p, run_opts(&cc.ro, p), a.from, z->role == GW_ROLE_SERVER, why, sizeof why)) {
            from_free();
            conform_driver_free(z->D);
            g_free(z);
            return cli_usage_error("%s", why);
        }
    }
    cli_report_to(a.quiet ? 2 : a.fmt == OUT_JSON ? 1 : 0);
    signal(SIGPIPE, SIG_IGN);
    if (a.reproduce) {
        int st = reproduce(z);
        conform_driver_free(z->D);
        g_free(z);
        return cli_finish(st);
    }
    char *command = cli_command_line(argc, argv);
    char started[24];
    time_t now = time(NULL);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int status = EXIT_CLEAN;
    char why[400] = "";
    if (!start_implementation(z)) {
        snprintf(why, sizeof why, "--exec: the implementation did not start answering within %g s", a.peer_wait);
        status = EXIT_USAGE;
    }
    if (status == EXIT_CLEAN && !a.exec && !alive(z)) {
        /* no answer to judge by: every iteration would look like a hang */
        snprintf(why, sizeof why, "%s at %s did not answer the probe on a fresh connection (is it there, and does it "
                 "answer what its text requires?): nothing to judge a hang by", p->short_name, a.target);
        status = EXIT_USAGE;
    }
    if (status == EXIT_CLEAN && a.from) {
        /* the recording replayed whole, unmutated: how many PDUs come after
           each of ours, and that the probe is answered after it */
        conform_result r;
        kind k;
        from.baseline = true;
        from.at = FROM_MAX;
        int rc = run_case(z, &from_case, &r, why, sizeof why, &k);
        from.baseline = false;
        if (rc != 0 || k != K_NONE || r.verdict != GW_PASS) {
            if (rc == 0)
                snprintf(why, sizeof why, "--from %s: %s%.300s: nothing to judge a mutation by", a.from,
                         k != K_NONE ? "the implementation " : "", k != K_NONE ? z->ch.status : r.outcome);
            status = EXIT_USAGE;
        }
        conform_result_clear(&r);
    }
    int64_t t0 = mono_ms(), until = a.duration ? t0 + (int64_t)(a.duration * 1000) : INT64_MAX;
    gw_rng pick = {a.seed};
    bool stop = false;
    for (unsigned i = 1; status == EXIT_CLEAN && !stop && (!a.iterations || i <= a.iterations) &&
                         mono_ms() < until && !cap_stop_requested();
         i++) {
        int64_t next = t0 + (int64_t)((i - 1) * 1000 / a.rate);
        while (mono_ms() < next) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        if (a.from) {
            unsigned j = (unsigned)gw_rng_below(&pick, from.n_targets);
            it.t = &from.targets[j];
            from.at = from.target_at[j];
        } else {
            it.t = targets[gw_rng_below(&pick, n_targets)];
        }
        it.seed = gw_rng_next(&pick);
        conform_result r;
        int crc;
        kind k = judge(z, a.from ? &from_case : &mutation_case, &r, &crc, why, sizeof why);
        z->iterations++;

        if (k == K_NONE) {
            if (r.verdict == GW_INFO)
                z->closed++;
            else if (r.verdict == GW_SKIPPED)
                z->unreached++;
            conform_result_clear(&r);
            continue;
        }
        if (crc != 0)
            snprintf(r.outcome, sizeof r.outcome, "after the %s (%s): %s", it.t->name, it.what, why);
        char extra[700] = "";
        if (k == K_EXIT)
            snprintf(extra, sizeof extra, "the implementation %s", z->ch.status);
        else if (k == K_SANITIZER)
            snprintf(extra, sizeof extra, "its standard error: %s", z->ch.report);
        else if (k == K_DEAD)
            snprintf(extra, sizeof extra, "a fresh connection was not answered either");
        record_failure(z, k, i, &r, extra[0] ? extra : NULL);
        if (k == K_DEAD || k == K_EXIT || k == K_SANITIZER) {
            if (!a.exec)
                stop = true; /* nobody to restart it */
            else if (!start_implementation(z)) {
                snprintf(why, sizeof why, "--exec: the implementation did not start again within %g s", a.peer_wait);
                stop = true;
            }
        }
    }
    child_stop(&z->ch);
    double secs = (double)(mono_ms() - t0) / 1000;
    bool written = true;
    for (unsigned i = 0; i < z->n_f && a.out_dir; i++) {
        failure *f = &z->f[i];
        file_name(f->file, sizeof f->file, a.out_dir, f->k, f->target);
        conform_result one = f->minimal;
        one.c = &f->c;
        one.verdict = GW_FAIL;
        g_strlcpy(one.outcome, f->outcome, sizeof one.outcome);
        conform_run run = {.p = p, .role = z->role, .target = a.target, .results = &one, .n = 1, .done = 1,
                           .command = command, .subcommand = "fuzz"};
        g_strlcpy(run.started, started, sizeof run.started);
        written &= conform_write_pcapng(&run, f->file);
    }
    for (unsigned i = 0; i < z->n_f; i++) {
        if (a.fmt == OUT_JSON)
            json_failure(stdout, &z->f[i]);
        if (cli_report && a.fmt != OUT_JSON)
            text_failure(cli_report, &z->f[i]);
    }
    if (status != EXIT_CLEAN)
        fprintf(stderr, "pcaptool: %s\n", why[0] ? why : "the target could not be reached");
    unsigned failures = 0;
    for (unsigned k = 1; k < N_KINDS; k++)
        failures += z->counts[k];
    if (a.fmt == OUT_JSON) {
        printf("{\"summary\":{\"protocol\":\"%s\",\"role\":\"%s\",\"target\":", p->name,
               z->role == GW_ROLE_SERVER ? "server" : "client");
        out_json_string(stdout, (const uint8_t *)a.target, strlen(a.target));
        printf(",\"seed\":%llu,\"iterations\":%u,\"seconds\":%.3f,\"distinct\":%u,\"failures\":%u,\"closed\":%u,"
               "\"unreached\":%u,\"restarted\":%u,\"started\":\"%s\",\"command\":",
               (unsigned long long)a.seed, z->iterations, secs, z->n_f, failures, z->closed, z->unreached, z->restarts,
               started);
        out_json_string(stdout, (const uint8_t *)command, strlen(command));
        printf("}}\n");
    } else if (cli_report) {
        fprintf(cli_report, "%s %s at %s: %u iterations in %.1f s (seed %llu): %u failure%s, %u distinct", p->short_name,
                z->role == GW_ROLE_SERVER ? "server" : "client", a.target, z->iterations, secs,
                (unsigned long long)a.seed, failures, failures == 1 ? "" : "s", z->n_f);
        for (unsigned k = 1; k < N_KINDS; k++)
            if (z->counts[k])
                fprintf(cli_report, ", %s %u", kind_names[k], z->counts[k]);
        fprintf(cli_report, "; %u closed by the implementation, %u unreached", z->closed, z->unreached);
        if (z->restarts)
            fprintf(cli_report, "; %u client%s started again for not coming", z->restarts, z->restarts == 1 ? "" : "s");
        fputc('\n', cli_report);
    }
    if (a.junit || a.html) {
        conform_result *results = g_new0(conform_result, z->n_f + 1);
        conform_run run = as_run(z, command, started, results);
        if (a.junit)
            written &= conform_write_junit(&run, a.junit);
        if (a.html)
            written &= conform_write_html(&run, a.html);
        g_free(results);
    }
    if (status == EXIT_CLEAN)
        status = !written ? EXIT_USAGE : z->n_f ? EXIT_FINDINGS : EXIT_CLEAN;
    for (unsigned i = 0; i < z->n_f; i++)
        conform_result_clear(&z->f[i].minimal);
    from_free();
    conform_driver_free(z->D);
    g_free(z);
    g_free(command);
    return cli_finish(status);
}

const subcommand cmd_fuzz = {"fuzz", "--proto PROTO --target HOST:PORT",
                             "mutate a protocol's PDUs against a live implementation: its hangs, crashes\n"
                             "and malformed answers, each with a minimal reproducer",
                             run_fuzz, fuzz_usage};
