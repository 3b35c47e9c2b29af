/* conform.h - pcaptool conform's results and their reports (conform.c
 * runs the cases, conform_report.c writes text, JSON Lines, JUnit, HTML
 * and the pcapng of the traffic). */
#ifndef PCAPTOOL_CONFORM_H
#define PCAPTOOL_CONFORM_H

#include <glib.h>
#include <sys/socket.h>

#include "active/gw_conform.h"
#include "output.h"

typedef struct {
    int finding; /* index in the protocol's findings */
    char *message;
} conform_finding;

/* a PDU of a case's exchange, decoded */
typedef struct {
    bool ours;        /* sent by pcaptool */
    bool echo;        /* received, and the same bytes as a PDU pcaptool sent in the case */
    int transport;    /* GW_TRANSPORT_*: the catalogue's, or its link's */
    uint16_t local_port; /* pcaptool's port then (a case may reconnect) */
    int64_t time_ns;  /* since the case began */
    int64_t wall_ns;
    uint8_t *data;
    size_t len;
    int64_t type;
    gw_item *items;
    unsigned n_items;
    char *summary;
    GArray *findings; /* conform_finding */
} conform_pdu;

typedef struct {
    const gw_conform_case *c;
    gw_verdict verdict;
    char outcome[400];
    double seconds;
    char local[64], peer[64]; /* the connection's ends ("" when none was made) */
    struct sockaddr_storage local_addr, peer_addr;
    GArray *pdus;             /* conform_pdu */
    unsigned decisive;        /* 1-based index of the PDU that decided; 0: none */
    gw_wait ended;            /* GW_SILENT or GW_CLOSED: the last wait the case asked for
                                 ended on silence or the connection's end, and that decided */
    int64_t ended_ns;         /* when (from the case's start, as conform_pdu.time_ns) */
    unsigned ended_after;     /* the PDUs before it (a case may send more after it) */
    bool over_time;           /* the case ran into its time bound */
    unsigned not_kept;        /* PDUs past the keep bound: decoded, given to the case, not kept */
    uint64_t not_kept_bytes;
} conform_result;

void conform_result_clear(conform_result *r);
/* keep only its first n PDUs */
void conform_result_truncate(conform_result *r, unsigned n);

typedef struct {
    const gw_protocol *p;
    unsigned role; /* the implementation's: GW_ROLE_* */
    const char *target;
    bool strict;
    conform_result *results;
    unsigned n;     /* cases selected */
    unsigned done;  /* cases run */
    unsigned count[GW_N_VERDICTS];
    unsigned failed; /* Fail, and Non-strict under --strict */
    const char *error; /* the run stopped: why (NULL: it did not) */
    /* what the reports say of the run itself (as Autobahn's do) */
    char started[24];     /* UTC, ISO 8601: 2026-11-26T06:40:01Z */
    const char *command;  /* the command line, quoted for a shell */
    bool color;           /* the text report's verdicts in colour (a terminal, --color) */
    const char *subcommand; /* what ran, for the pcapng's comments (NULL: "conform") */
} conform_run;

/* Does the verdict fail the run? */
static inline bool conform_fails(const conform_run *r, gw_verdict v)
{
    return v == GW_FAIL || (r->strict && v == GW_NON_STRICT);
}

/* --dry-run: the selected cases, what each sends and expects (markdown: as
   a table) */
void conform_write_catalogue(const conform_run *r, out_format fmt, bool markdown);
/* case i has run: its line (text, with -V its exchange) or JSON record;
   counts it */
void conform_write_case(conform_run *r, unsigned i, out_format fmt, bool verbose);
/* the end: the counts (text line or JSON record) */
void conform_write_summary(const conform_run *r, out_format fmt);
/* the files; false (an error printed) when one could not be written */
bool conform_write_junit(const conform_run *r, const char *path);
bool conform_write_html(const conform_run *r, const char *path);
bool conform_write_pcapng(const conform_run *r, const char *path);

/* ---- the driver, for pcaptool fuzz --------------------------------------- */

/* What runs a case against the implementation: its sockets (one fresh
   connection a case), decoding, recording. */
typedef struct conform_driver conform_driver;
conform_driver *conform_driver_new(const gw_protocol *p, const gw_conform *cf, const int *opts, const char *target,
                                   unsigned role, double timeout, double peer_wait, char **sets, unsigned n_sets);
void conform_driver_free(conform_driver *D);
gw_conform_io *conform_driver_io(conform_driver *D);
/* the catalogue's audit (gw_conform.audit) left out: what fuzz mutates is
   no case's (an ack of a number only a mutation sent is no canned answer) */
void conform_driver_no_audit(conform_driver *D);
/* run case c: 0 with its result in *r, or EXIT_USAGE with the reason in why
   (the target cannot be reached: nothing listens, nobody came) */
int conform_driver_run(conform_driver *D, const gw_conform_case *c, conform_result *r, char *why, size_t whysz);
bool conform_driver_peer_spoke(const conform_driver *D);
/* pcaptool as server over TCP: listen at the target now, before a client
   is started that connects once and does not try again (0, or EXIT_USAGE
   with the reason in why; UDP: nothing to do) */
int conform_driver_listen(conform_driver *D, char *why, size_t whysz);
/* ... and has a client connected within ms (UDP, or not listening: true)? */
bool conform_driver_pending(conform_driver *D, int ms);
/* the previous case's peer has ended (fuzz --exec reaped its process): the
   next datagram comes from the next one, even from the same address and
   port (the system may give a new process the port the last one had) */
void conform_driver_peer_ended(conform_driver *D);
/* the PDUs the running case has recorded so far (sent and received) */
unsigned conform_driver_recorded(const conform_driver *D);
/* d[0..n) decoded as the implementation's peer would send it on a fresh
   conversation: its items (g_free them) */
unsigned conform_driver_items(conform_driver *D, const uint8_t *d, size_t n, gw_item **items);
/* d[0..n) sent on the case's stream one byte a write (recorded as one PDU) */
bool conform_driver_send_bytewise(conform_driver *D, const uint8_t *d, size_t n);

#endif
