#!/usr/bin/env python3
"""EOUDP test peer, written from the text "(EOUDP) - Exodia On UDP" alone
(Exodia Request for comments: 1, 27 december 2023), for tests only.

It is an independent reading of that text, not a production implementation.

Usage:
    eoudp_text_peer.py [--big-endian] --listen HOST PORT MODE            (server)
    eoudp_text_peer.py [--big-endian] HOST PORT MODE [SILENCE_MS]        (client)

MODES
  good
      Does what the text requires: Connect (0x81) is acknowledged (0x01) and
      answered with Accept (0x02); every command marked "MUST get an
      acknowledge" is acknowledged with its Id; Disconnect (0x82) is answered
      with 0x11 as in the Usage section; the client sends a few events (0x8b)
      and a packet-info (0x00), then disconnects (0x82).

  Broken modes (each breaks exactly one sentence of the text):
  no-ack
      Never sends Acknowledge (0x01). Breaks, section "ServerCommand" /
      "ClientCommand": "0x0b - Send system to load MUST get an acknowledge"
      (and the same "MUST get an acknowledge" of 0x0c..0x10 as client, and of
      "0x81 - Connect MUST get an acknowledge" as server).
  wrong-ack-id
      Acknowledges with Id+1. Breaks, section "0x01 - Acknowledge": "It's
      content is [Id] the id of the command to acknowledge."
  bad-size
      Header Size is 4 more than the real content length. Breaks, section
      "Representation": "Size - 64 bit (8 bytes) unsigned integer representing
      the size of the content of the packet."
  short-header
      Header Id is written on 4 bytes (17-byte header). Breaks, section
      "Representation": "Id - 64 bit (8 bytes) unsigned integer representing the
      id of the command use for implementing acknoledgement."
  no-null-terminator   (server; the client sends no strings, acts as good)
      System / GameEvents / Component strings are sent without their
      terminating NUL. Breaks, section "Representation": "System - Null
      terminated string prefixed with a 32 bit (4 bytes) unsigned integer
      representing the length of the string."
  wrong-direction
      Client sends its events with code 0x10 instead of 0x8b; server sends its
      data commands (0x0b 0x0c 0x0d 0x0e) with bit 0x80 set. Breaks, section
      "Commands": "command inferior to 0x80 are server commands and superior
      to 0x80 are client commands."

  Configuration modes (allowed by the text):
  refuse   (server; client acts as good)
      Answers every Connect with Reject (0x03). Relies on "0x03 - Reject
      client connection ... This command is used to reject a client
      connection. It's content is empty." (no reason is required).
  kick     (server; client acts as good)
      Accepts, sends the initial data, then ends the session itself with 0x03.
      Relies on section "Usage", "End: one or the other: ...
      Server -> [0x03][Timestamp][Id]".
  multi-system   (server; client acts as good)
      Packs several Systems / GameEvents / entity-components in one 0x0b /
      0x0d / 0x0c. Relies on section "Usage":
      "Server -> [0x0b][Timestamp][Id][System][System]...".
  usage-literal
      Follows the Usage example literally where it differs from the command
      table: Connect (client) and Accept (server) with empty content,
      Disconnect (client) with content [Id]. Relies on section "Usage":
      "Client -> [0x81][Timestamp][Id]", "Server -> [0x02][Timestamp][Id]",
      "Client -> [0x82][Timestamp][Id][Id]".

Debug: TEXTPEER_DEBUG=1 logs one line per datagram sent/received on stderr.
"""
import os
import select
import socket
import struct
import sys
import time

BROKEN = ["no-ack", "wrong-ack-id", "bad-size", "short-header",
          "no-null-terminator", "wrong-direction"]
CONFIG = ["refuse", "kick", "multi-system", "usage-literal"]
MODES = ["good"] + BROKEN + CONFIG

# READING: the text never states the byte order of any field. We use
# little-endian (what a C/C++ implementation copying structs on x86 produces);
# --big-endian switches every field to network order.
E = "<"
T0 = time.monotonic()
DEBUG = os.environ.get("TEXTPEER_DEBUG") == "1"

# Command codes (from the command table; see readings below for conflicts).
PACKET_INFO, ACK, ACCEPT, REJECT = 0x00, 0x01, 0x02, 0x03
SYSTEM, ENTITY, GAMEEVENTS, DEL_ENTITY, DEL_COMPONENT, IMPORTANT = \
    0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10
DISC_REPLY = 0x11          # "Server -> [0x11][Timestamp][Id][Id]" in Usage/End
CONNECT, DISCONNECT, EVENT = 0x81, 0x82, 0x8b
# Commands the text says "MUST get an acknowledge".
RELIABLE_FROM_SERVER = {SYSTEM, ENTITY, GAMEEVENTS, DEL_ENTITY, DEL_COMPONENT,
                        IMPORTANT}

RETX_S = 0.25              # READING: text is silent on retransmission; the
MAX_TRIES = 10             # abstract says UDP loses packets, so we resend
                           # unacknowledged commands every 250 ms, 10 times.


def log(msg):
    if DEBUG:
        sys.stderr.write("[eoudp-text %.3f] %s\n" % (time.monotonic() - T0, msg))
        sys.stderr.flush()


def warn(msg):
    sys.stderr.write("[eoudp-text] %s\n" % msg)
    sys.stderr.flush()


def ts():
    # READING: "Timestamp - A float representing the time in seconds" - the
    # origin is not given; we use seconds since this process started.
    return time.monotonic() - T0


# ---------------------------------------------------------------- encoding
# Header: [Command][Timestamp][Id][Size] = 1 + 4 + 8 + 8 = 21 bytes.
HDR_LEN = 21


def build(mode, cmd, pid, payload):
    size = len(payload) + (4 if mode == "bad-size" else 0)
    if mode == "short-header":
        hdr = struct.pack(E + "BfIQ", cmd, ts(), pid & 0xFFFFFFFF, size)
    else:
        hdr = struct.pack(E + "BfQQ", cmd, ts(), pid, size)
    return hdr + payload


def parse(data):
    """Returns (cmd, timestamp, id, payload) or None if malformed.
    READING: one command per datagram ("Each command is prefixed with a
    header"); Size must equal the number of bytes after the header, anything
    else is dropped."""
    if len(data) < HDR_LEN:
        return None
    cmd, t, pid, size = struct.unpack(E + "BfQQ", data[:HDR_LEN])
    if size != len(data) - HDR_LEN:
        return None
    return cmd, t, pid, data[HDR_LEN:]


def enc_str(mode, s):
    # READING: "Null terminated string prefixed with a 32 bit ... unsigned
    # integer representing the length of the string" - we send the length
    # WITHOUT the terminator (strlen), followed by the bytes and one NUL.
    b = s.encode()
    return struct.pack(E + "I", len(b)) + b + (b"" if mode == "no-null-terminator" else b"\0")


def dec_str(buf, off, incl):
    """incl=False: length excludes the NUL; incl=True: length counts it.
    Receivers try both readings and keep the one that parses the whole
    content exactly."""
    if off + 4 > len(buf):
        raise ValueError("short string length")
    (n,) = struct.unpack_from(E + "I", buf, off)
    off += 4
    if incl:
        if n < 1 or off + n > len(buf) or buf[off + n - 1] != 0:
            raise ValueError("bad string")
        return buf[off:off + n - 1], off + n
    if off + n + 1 > len(buf) or buf[off + n] != 0:
        raise ValueError("bad string")
    return buf[off:off + n], off + n + 1


def dec_blob(buf, off):
    if off + 4 > len(buf):
        raise ValueError("short blob length")
    (n,) = struct.unpack_from(E + "I", buf, off)
    off += 4
    if off + n > len(buf):
        raise ValueError("short blob")
    return buf[off:off + n], off + n


def dec_u64(buf, off):
    return struct.unpack_from(E + "Q", buf, off)[0], off + 8   # struct.error if short


def enc_ecc(mode, entity, comp, content):
    return (struct.pack(E + "Q", entity) + enc_str(mode, comp)
            + struct.pack(E + "I", len(content)) + content)


def _repeat(buf, one, incl):
    """Parse one-or-more items until the buffer ends exactly (the Usage
    section shows "[System][System]...", "[Entity]...")."""
    off, n = 0, 0
    while off < len(buf):
        off = one(buf, off, incl)
        n += 1
    if n == 0:
        raise ValueError("empty content")


_system = lambda b, o, i: dec_str(b, o, i)[1]                        # noqa
_ec = lambda b, o, i: dec_str(b, dec_u64(b, o)[1], i)[1]             # noqa
_ecc = lambda b, o, i: dec_blob(b, _ec(b, o, i))[1]                  # noqa
_entity = lambda b, o, i: dec_u64(b, o)[1]                           # noqa


def valid_server_content(cmd, p):
    """Validate the content of a server data command before acknowledging."""
    def any_reading(one):
        for incl in (False, True):
            try:
                _repeat(p, one, incl)
                return True
            except (ValueError, struct.error):
                pass
        return False
    if cmd in (SYSTEM, GAMEEVENTS):
        return any_reading(_system)
    if cmd == ENTITY:
        return any_reading(_ecc)
    if cmd == DEL_ENTITY:
        return any_reading(_entity)
    if cmd == DEL_COMPONENT:
        # READING: table says [Entity][Component][Content_of_a_component],
        # details (under the heading 0x10) say [Entity][Component]; accept both.
        return any_reading(_ecc) or any_reading(_ec)
    if cmd == IMPORTANT:
        # READING: table says 0x10 is important events [Event][Bool]; the
        # details section calls 0x10 "deleted components"; accept both.
        return len(p) == 5 or any_reading(_ecc) or any_reading(_ec)
    return False


# ---------------------------------------------------------------- peer core
class Peer:
    """Per-association state shared by client and server."""

    def __init__(self, sock, addr, mode):
        self.sock, self.addr, self.mode = sock, addr, mode
        # READING: every datagram (acks included) carries a fresh header Id
        # from a per-sender counter starting at 1; the text does not say.
        self.next_id = 1
        self.seen = {}             # received reliable ids (duplicates)
        self.queue = []            # reliable commands waiting to be sent
        self.inflight = None       # [pid, packet, next_time, tries]
        self.rx = self.tx = 0      # counters for 0x00
        self.last_rx = time.monotonic()
        self.last_info = time.monotonic()

    def send(self, cmd, payload=b"", pid=None):
        if pid is None:
            pid = self.next_id
            self.next_id += 1
        pkt = build(self.mode, cmd, pid, payload)
        self.raw(pkt, "cmd=0x%02x id=%d len=%d" % (cmd, pid, len(payload)))
        return pid, pkt

    def raw(self, pkt, what):
        try:
            if self.addr is None:
                self.sock.send(pkt)
            else:
                self.sock.sendto(pkt, self.addr)
            self.tx += 1
            log("send %s %s" % (self.addr or "server", what))
        except OSError as e:
            warn("send failed: %s" % e)

    def ack(self, pid):
        if self.mode == "no-ack":
            return
        if self.mode == "wrong-ack-id":
            pid = (pid + 1) & 0xFFFFFFFFFFFFFFFF
        self.send(ACK, struct.pack(E + "Q", pid))

    def send_reliable(self, cmd, payload):
        # READING: the Usage section waits for each acknowledge before the
        # next command, so reliable commands are sent one at a time.
        self.queue.append((cmd, payload))
        self.pump()

    def pump(self):
        if self.inflight is None and self.queue:
            cmd, payload = self.queue.pop(0)
            pid, pkt = self.send(cmd, payload)
            self.inflight = [pid, pkt, time.monotonic() + RETX_S, 1]

    def on_ack(self, p):
        if len(p) != 8:
            return
        (aid,) = struct.unpack(E + "Q", p)
        if self.inflight and self.inflight[0] == aid:
            self.inflight = None
            self.pump()

    def first_time(self, pid):
        """Remember a reliable id; True if not seen before."""
        if pid in self.seen:
            return False
        self.seen[pid] = True
        if len(self.seen) > 4096:
            for k in list(self.seen)[:2048]:
                del self.seen[k]
        return True

    def timers(self, now):
        """Retransmissions; returns False when the peer gave up."""
        if self.inflight and now >= self.inflight[2]:
            if self.inflight[3] >= MAX_TRIES:
                return False
            self.inflight[2] = now + RETX_S
            self.inflight[3] += 1
            self.raw(self.inflight[1], "retransmit id=%d" % self.inflight[0])
        return True

    def packet_info(self):
        # "the first int is the number of packets received and the second int
        # is the number of packets send" since the last 0x00.
        rx, tx = min(self.rx, 2**31 - 1), min(self.tx, 2**31 - 1)
        self.rx = self.tx = 0
        self.last_info = time.monotonic()
        self.send(PACKET_INFO, struct.pack(E + "ii", rx, tx))


# ---------------------------------------------------------------- server
class ServerClient(Peer):
    def __init__(self, sock, addr, mode, cid):
        Peer.__init__(self, sock, addr, mode)
        self.cid = cid
        self.kick_at = None
        self.initial_sent = False
        self.entity = 100


MAX_CLIENTS = 64           # READING: beyond this the server is "full" and
CLIENT_IDLE_S = 10.0       # rejects with 0x03; idle clients are forgotten.


def srv_cmd(mode, cmd):
    return cmd | 0x80 if mode == "wrong-direction" else cmd


def server_initial(c):
    m = c.mode
    if m == "multi-system":
        c.send_reliable(srv_cmd(m, SYSTEM), enc_str(m, "movement") + enc_str(m, "render")
                        + enc_str(m, "input"))
        c.send_reliable(srv_cmd(m, GAMEEVENTS), enc_str(m, "start") + enc_str(m, "spawn"))
        c.send_reliable(srv_cmd(m, ENTITY),
                        enc_ecc(m, 1, "position", struct.pack(E + "ff", 1.0, 2.0))
                        + enc_ecc(m, 1, "velocity", struct.pack(E + "ff", 0.0, 0.5)))
    else:
        for s in ("movement", "render"):
            c.send_reliable(srv_cmd(m, SYSTEM), enc_str(m, s))
        c.send_reliable(srv_cmd(m, GAMEEVENTS), enc_str(m, "start"))
        c.send_reliable(srv_cmd(m, ENTITY),
                        enc_ecc(m, 1, "position", struct.pack(E + "ff", 1.0, 2.0)))
    c.initial_sent = True


def server_packet(sock, mode, clients, state, data, addr):
    pk = parse(data)
    if pk is None:
        log("recv %s malformed len=%d (dropped)" % (addr, len(data)))
        return
    cmd, _t, pid, p = pk
    log("recv %s cmd=0x%02x id=%d len=%d" % (addr, cmd, pid, len(p)))
    c = clients.get(addr)
    if c:
        c.rx += 1
        c.last_rx = time.monotonic()
    if cmd == CONNECT:
        # Table: content [Timestamp][Id]; Usage example: no content. Accept both.
        if len(p) not in (0, 12):
            log("connect with bad content length %d dropped" % len(p))
            return
        if c is None:
            tmp = Peer(sock, addr, mode)
            if mode == "refuse" or len(clients) >= MAX_CLIENTS:
                # "0x81 - Connect MUST get an acknowledge": ack, then reject.
                tmp.ack(pid)
                tmp.send(REJECT)
                return
            state["cid"] += 1
            c = ServerClient(sock, addr, mode, state["cid"])
            c.rx = 1
            clients[addr] = c
        # READING: the table wants an acknowledge (0x01) for Connect, the
        # Usage example shows only Accept (0x02); we send both, ack first.
        c.ack(pid)  # duplicate Connects are acknowledged and accepted again
        c.send(ACCEPT, b"" if mode == "usage-literal" else struct.pack(E + "Q", c.cid))
        if not c.initial_sent:
            server_initial(c)
        return
    if cmd == DISCONNECT:
        # Content empty per table, [Id] per Usage: accept both. Answer with
        # 0x11 [Id of the disconnect] as the Usage "End" shows, even for an
        # unknown address (a retransmitted Disconnect must still be answered).
        if len(p) not in (0, 8):
            return
        (c or Peer(sock, addr, mode)).send(DISC_REPLY, struct.pack(E + "Q", pid))
        clients.pop(addr, None)
        return
    if c is None:
        log("packet from unconnected %s ignored" % (addr,))
        return
    if cmd == ACK:
        c.on_ack(p)
        if c.inflight is None and not c.queue and mode == "kick" and c.kick_at is None:
            c.kick_at = time.monotonic() + 0.1
    elif cmd == PACKET_INFO:
        if len(p) == 8:
            rx, tx = struct.unpack(E + "ii", p)
            log("peer reports received=%d sent=%d" % (rx, tx))
    elif cmd in (EVENT, 0x8c):
        # 0x8c only appears in the details section; treat it like 0x8b.
        # Neither is marked "MUST get an acknowledge", so none is sent.
        # READING: [Bool] has no size in "Representation"; we use 1 byte (0/1).
        if len(p) != 5:
            return
        ev, press = struct.unpack(E + "IB", p)
        c.entity += 1
        if press:
            c.send_reliable(srv_cmd(mode, ENTITY),
                            enc_ecc(mode, c.entity, "position", struct.pack(E + "ff", ev, 0.0)))
        else:
            c.send_reliable(srv_cmd(mode, DEL_ENTITY), struct.pack(E + "Q", c.entity))
    else:
        log("cmd 0x%02x ignored" % cmd)


def run_server(host, port, mode):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((host, port))
    warn("server listening on %s:%d mode=%s" % (host, port, mode))
    clients, state = {}, {"cid": 0}
    while True:
        try:
            r, _, _ = select.select([sock], [], [], 0.05)
        except InterruptedError:
            continue
        if r:
            for _ in range(256):
                try:
                    data, addr = sock.recvfrom(65535)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError as e:   # e.g. ICMP errors reported late
                    log("recvfrom: %s" % e)
                    break
                try:
                    server_packet(sock, mode, clients, state, data, addr)
                except Exception as e:  # never let one datagram kill us
                    warn("error handling packet from %s: %r" % (addr, e))
                sock.setblocking(False)
            sock.setblocking(True)
        now = time.monotonic()
        for addr, c in list(clients.items()):
            try:
                if now - c.last_rx > CLIENT_IDLE_S or not c.timers(now):
                    log("dropping %s" % (addr,))
                    del clients[addr]
                    continue
                if c.kick_at is not None and now >= c.kick_at:
                    c.send(REJECT)
                    del clients[addr]
                    continue
                # 0x00 "since last second": sent once a second per client.
                if now - c.last_info >= 1.0:
                    c.packet_info()
            except Exception as e:
                warn("error in timers for %s: %r" % (addr, e))
                clients.pop(addr, None)


# ---------------------------------------------------------------- client
def run_client(host, port, mode, silence_ms):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect((host, port))
    me = Peer(sock, None, mode)
    start = time.monotonic()
    silence = silence_ms / 1000.0
    last_rx = start
    if mode == "usage-literal":
        connect_payload = b""
    else:
        # "[Timestamp][Id] the timestamp of the client and the id of the
        # server to connect to". READING: the client does not know a server
        # id; it sends 0.
        connect_payload = struct.pack(E + "fQ", ts(), 0)
    cpid, cpkt = me.send(CONNECT, connect_payload)
    conn_retx = [cpkt, start + RETX_S, 1]     # resent until 0x02 arrives
    connected_at = None
    plan = []                                 # (time, action)
    disc = None                               # [pid, pkt, next, tries]
    while True:
        now = time.monotonic()
        if now - start > 25.0:
            warn("client: 25 s limit reached")
            return 0
        if now - last_rx > silence:
            log("silence for %d ms, exiting" % silence_ms)
            return 0
        if disc and now - disc[4] > 1.5:
            return 0
        if connected_at is None and now - start > 2.0:
            # READING: the text gives no handshake timeout; we give up after 2 s.
            log("no valid Accept within 2 s, giving up")
            return 0
        if connected_at is None and conn_retx and now >= conn_retx[1] and conn_retx[2] < 6:
            me.raw(conn_retx[0], "retransmit connect id=%d" % cpid)
            conn_retx[1] = now + RETX_S
            conn_retx[2] += 1
        while plan and now >= plan[0][0]:
            _, action = plan.pop(0)
            if action == "press" or action == "release":
                code = 0x10 if mode == "wrong-direction" else EVENT
                me.send(code, struct.pack(E + "IB", 32, 1 if action == "press" else 0))
            elif action == "info":
                me.packet_info()
            elif action == "disconnect":
                dp = b""
                pid = me.next_id
                if mode == "usage-literal":
                    dp = struct.pack(E + "Q", pid)
                pid, pkt = me.send(DISCONNECT, dp)
                disc = [pid, pkt, now + 0.3, 1, now]
        if disc and now >= disc[2] and disc[3] < 3:
            me.raw(disc[1], "retransmit disconnect id=%d" % disc[0])
            disc[2] = now + 0.3
            disc[3] += 1
        try:
            r, _, _ = select.select([sock], [], [], 0.02)
        except InterruptedError:
            continue
        if not r:
            continue
        try:
            data = sock.recv(65535)
        except ConnectionRefusedError:
            log("connection refused (ICMP port unreachable)")
            return 0
        except OSError as e:
            warn("recv: %s" % e)
            return 0
        last_rx = time.monotonic()
        me.rx += 1
        pk = parse(data)
        if pk is None:
            log("recv malformed len=%d (dropped)" % len(data))
            continue
        cmd, _t, pid, p = pk
        log("recv cmd=0x%02x id=%d len=%d" % (cmd, pid, len(p)))
        if cmd == REJECT:
            # READING: "It's content is empty", but a reject with content is
            # still taken as a reject (ending is the safe side).
            log("rejected / session ended by server")
            return 0
        if cmd == ACK:
            if len(p) == 8 and disc and struct.unpack(E + "Q", p)[0] == disc[0]:
                return 0
            continue
        if cmd == ACCEPT:
            # Table: [Id] the id of the client; Usage: no content. Accept both.
            if len(p) not in (0, 8):
                log("accept with bad content dropped")
                continue
            if connected_at is None:
                connected_at = time.monotonic()
                if len(p) == 8:
                    log("accepted, client id %d" % struct.unpack(E + "Q", p)[0])
                t = connected_at
                plan = [(t + 0.10, "press"), (t + 0.15, "release"),
                        (t + 0.20, "info"), (t + 0.40, "disconnect")]
            continue
        if cmd == DISC_REPLY:
            if disc:
                log("disconnect confirmed")
                return 0
            continue   # otherwise 0x11 "Send events" [Event]: nothing to do
        if cmd in RELIABLE_FROM_SERVER:
            if not valid_server_content(cmd, p):
                log("malformed content for 0x%02x, not acknowledged" % cmd)
                continue
            # Duplicates are acknowledged again but not processed twice.
            me.first_time(pid)
            me.ack(pid)
            continue
        # 0x00 packet info and anything else (incl. codes >= 0x80, which are
        # client commands) need no answer.


def usage(msg=None):
    if msg:
        sys.stderr.write("error: %s\n" % msg)
    sys.stderr.write("usage: eoudp_text_peer.py [--big-endian] --listen HOST PORT MODE | "
                     "eoudp_text_peer.py [--big-endian] HOST PORT MODE [SILENCE_MS]\n"
                     "modes: %s\n" % " ".join(MODES))
    sys.exit(2)


def main(argv):
    global E
    args = list(argv)
    if "--big-endian" in args:
        args.remove("--big-endian")
        E = ">"
    listen = False
    if args and args[0] == "--listen":
        listen = True
        args = args[1:]
        if len(args) != 3:
            usage()
    elif len(args) not in (3, 4):
        usage()
    host, port, mode = args[0], args[1], args[2]
    if mode not in MODES:
        usage("unknown mode %r" % mode)
    try:
        port = int(port)
        silence = int(args[3]) if len(args) == 4 else 1000
    except ValueError:
        usage("bad number")
    if listen:
        try:
            run_server(host, port, mode)
        except KeyboardInterrupt:
            pass
        return 0
    return run_client(host, port, mode, silence)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) or 0)
