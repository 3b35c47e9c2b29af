#!/usr/bin/env python3
"""Test peer written from the text "OpenDrakan network protocol (draft)"
alone, for tests only.  TCP carries what the text marks "reliable", UDP on
the same port number the rest.  Server: --listen HOST PORT MODE; client:
HOST PORT MODE [SILENCE_MS] (always exits 0).  Optional: --big-endian,
--type-base N (READING 1, 2).  Packet numbers: see WIRE NUMBERS below (the
text gives none).  Each mode is accepted in both roles; (server)
or (client) tells which role it changes, the other role behaves as "good".
Violations seen in what the other side sends go to stderr as "VIOLATION:".

good: what the text requires of the role (handshake, snapshots, ACKs...).
Broken modes, each breaking one sentence of the text:
wrong-db-count (server): total_loaded_db_count = entries sent + 1.  "Load
  level (reliable, downlink)": "The total number of databases that are loaded
  is included in this packet so the client can verify that it received a
  complete database table."
wrong-change-count (server): confirmations state one change too many.
  "Snapshot transmission": "Then, a *confirmation* packet is transmitted,
  which states how many discrete changes the snapshot with the given tick
  should contain, at which server time it was taken, and possibly more
  metadata."
delta-unacked (server): ignores ACKs, delta-encodes against the previous
  snapshot sent.  "Acknowledge snapshot (uplink)": "This is not strictly
  necessary, but the server can only use ACK'd snapshots in delta encoding."
unpacked-bools (server): visibility and running take one byte each.  "State
  serialization": "If 8 or less boolean states are serialized after each
  other, they are combined into a single byte, starting with the least
  significant bit."
ack-wrong-tick (client): ACKs tick_number+1 of each complete snapshot.
  "Acknowledge snapshot (uplink)": "Used by the client to tell the server
  that it has received a snapshot in full."
state-uplink (client): sends an Object State Changed to the server.
  "Snapshot packets": "Thus, they are only valid in the downlink. A client
  does not send state updates to the server."
Configuration modes (allowed by the text):
always-full (server): reference_tick_number always 0.  "Confirm Snapshot":
  "It may 0 to indicate this is a full snapshot."
confirm-first (server): confirmation first, then changes shuffled.
  "Snapshot transmission": "This scheme is also independent of the packet's
  order upon arrival."
extra-states (server): adds an Object Extra State Changed with 10 states (two
  mask groups).  "Object States": "Additionally, the RFL class of an object
  can define *extra states*, which are sent in a separate channel." and
  "State serialization": "Serialization is repeated in the same manner until
  all states have been serialized."
no-ack (client): never ACKs.  "Acknowledge snapshot (uplink)": "This is not
  strictly necessary, but the server can only use ACK'd snapshots in delta
  encoding."
"""
import collections
import os
import random
import select
import socket
import struct
import sys
import time

DEBUG = os.environ.get("TEXTPEER_DEBUG") == "1"
# READING 1: the text never states a byte order.  We use little-endian (the
# usual order of the x86 engine the text extends); --big-endian switches.
E = "<"
TB = None      # --type-base N: READING 2 instead of WIRE NUMBERS

# The packets, in the order the text lists them (internal numbers 0..13).
(DB_ENTRY, LOAD_LEVEL, CONFIRM, STATE_CHANGED, EXTRA_CHANGED, CREATED,
 LIFECYCLE, ACK, GLOBAL_MSG, OBJECT_MSG, ANIMATION, SOUND, ACTION,
 ANALOG) = range(14)
# WIRE NUMBERS (default): the text gives no numeric packet_type values.  The
# numbers of the packets the reference code has are the only facts taken from
# the project's wire notes (its OpenDrakan section, "Type codes" table): 0
# database table entry, 1 load level, 2 object state changed, 3 object extra
# state changed, 4 confirm snapshot, 5 global message, 6 object message, 8
# acknowledge snapshot, 9 action, 10 analog action.  Nothing else is taken
# from there: the payloads stay the text's (so messages and actions carry the
# text's f64 real time), and the text's packets no number is documented for
# (Object Created, Object lifecycle state changed, Object animation, Sound;
# the notes' event packet 7 has another layout) are numbered on from 11 in
# the order the text lists them: 11, 12, 13, 14 (our READING).
WIRE = [0, 1, 4, 2, 3, 11, 12, 8, 5, 6, 13, 14, 9, 10]
# READING 2 (--type-base N): we number the packets in the order the text
# lists them, starting at N.
def wire_type(t):
    return WIRE[t] if TB is None else (TB + t) & 0xFF

def our_type(code):
    if TB is None:
        return WIRE.index(code) if code in WIRE else 100 + code
    return (code - TB) & 0xFF
NAMES = ("DbEntry LoadLevel ConfirmSnapshot ObjectStateChanged "
         "ObjectExtraStateChanged ObjectCreated ObjectLifecycle AckSnapshot "
         "GlobalMessage ObjectMessage ObjectAnimation Sound Action "
         "AnalogAction").split()
CHANGES, UPLINK = {STATE_CHANGED, EXTRA_CHANGED, CREATED, LIFECYCLE}, {ACK, ACTION, ANALOG}
DOWNLINK = set(range(14)) - UPLINK
# (size, exact?) of the fixed part of each payload.
# READING 3: "gref" is never defined.  From "Asset references" (a 16-bit
# global DB index is the context of a reference) we read gref as
# u16 global_db_index followed by u16 asset_id (4 bytes).
SIZES = dict(enumerate([(4, 0), (4, 0), (28, 1), (14, 0), (14, 0), (16, 1),
                        (13, 1), (8, 1), (12, 0), (20, 0), (24, 1), (12, 1),
                        (13, 1), (20, 1)]))
MODES = ("good wrong-db-count wrong-change-count delta-unacked unpacked-bools "
         "ack-wrong-tick state-uplink always-full confirm-first extra-states "
         "no-ack").split()
# basic object states, in the order "Object states have a fixed order"
BASIC_KINDS = ["vec3", "quat", "vec3", "bool", "bool"]
KIND_FMT = {"vec3": "3f", "quat": "4f", "f32": "f"}
TICKS_PER_SECOND = 60      # "At 60 ticks per second"
SNAPSHOT_INTERVAL = 0.05   # READING 8: snapshot rate is not given; 20 Hz
DBS = ["Common.db", "Dragon.db", "Content/Levels/Intro/Intro.db"]
LEVEL = "Content/Levels/Intro.lvl"

def log(role, msg, always=False):
    if DEBUG or always:
        sys.stderr.write("[od-%s] %s\n" % (role, msg))
        sys.stderr.flush()

def warn(role, msg): log(role, msg, True)

def tname(t):
    return NAMES[t] if 0 <= t < len(NAMES) else "type%d" % t

def pkt(t, payload):
    # "Basic packet structure": u8 packet_type; u16 payload_length; payload
    return struct.pack(E + "BH", wire_type(t), len(payload)) + payload

def split_packets(buf):
    """Split a byte buffer into (type, payload) packets; return rest."""
    out, i = [], 0
    while len(buf) - i >= 3:
        t, n = struct.unpack_from(E + "BH", buf, i)
        if len(buf) - i - 3 < n:
            break
        out.append((our_type(t), bytes(buf[i + 3:i + 3 + n])))
        i += 3 + n
    return out, buf[i:]

def size_error(t, p):
    if t not in SIZES:
        return "unknown packet type %d" % t
    n, exact = SIZES[t]
    if len(p) < n or (exact and len(p) != n):
        return "%s payload of %d bytes (want %s%d)" % (
            tname(t), len(p), "" if exact else ">=", n)
    return None

def bool_byte(values):   # "starting with the least significant bit"
    return sum(1 << j for j, v in enumerate(values) if v)

def encode_bundle(states, kinds, jumps=(), combine=True):
    """State bundle: per group of 7 states a value mask, a jump mask, then the
    present states; bit 7 of the value mask announces another group."""
    out = bytearray()
    groups = (max(states) // 7 + 1) if states else 1
    for g in range(groups):
        idx = range(7 * g, 7 * g + 7)
        vm = sum(1 << (i - 7 * g) for i in idx if i in states)
        jm = sum(1 << (i - 7 * g) for i in idx if i in states and i in jumps)
        vm |= 0x80 if g < groups - 1 else 0
        out += bytes((vm, jm))   # jump mask bit 7 "currently unused": 0
        bools = []
        for i in [i for i in idx if i in states]:
            if kinds[i] == "bool" and not combine:
                out.append(1 if states[i] else 0)
            elif kinds[i] == "bool":
                bools.append(states[i])
            if bools and (len(bools) == 8 or kinds[i] != "bool"):
                out.append(bool_byte(bools))
                bools = []
            if kinds[i] != "bool":
                out += struct.pack(E + KIND_FMT[kinds[i]], *states[i])
        if bools:
            out.append(bool_byte(bools))
    return bytes(out)

def decode_bundle(data, kinds):
    """Inverse of encode_bundle; raises ValueError on malformed bundles.
    READING 4: a run of booleans is "serialized after each other" when no
    non-boolean *present* state lies between them (absent states are not
    serialized, so they do not break the run); a run never crosses a mask
    group, because the next group's masks are serialized in between."""
    states, jumps, pos, g = {}, set(), 0, 0
    while True:
        if pos + 2 > len(data):
            raise ValueError("truncated state bundle masks")
        vm, jm, pos, bools = data[pos], data[pos + 1], pos + 2, []

        def flush(pos):
            if not bools:
                return pos
            if pos >= len(data):
                raise ValueError("truncated boolean byte")
            for j, i in enumerate(bools):
                states[i] = bool(data[pos] >> j & 1)
            del bools[:]
            return pos + 1
        for i in [7 * g + b for b in range(7) if vm & (1 << b)]:
            if i >= len(kinds):
                raise ValueError("state index %d does not exist" % i)
            if jm & (1 << (i - 7 * g)):
                jumps.add(i)
            if kinds[i] == "bool":
                bools.append(i)
                pos = flush(pos) if len(bools) == 8 else pos
                continue
            pos, f = flush(pos), E + KIND_FMT[kinds[i]]
            if pos + struct.calcsize(f) > len(data):
                raise ValueError("truncated state %d" % i)
            states[i] = struct.unpack_from(f, data, pos)
            pos += struct.calcsize(f)
        pos, g = flush(pos), g + 1
        if not vm & 0x80:
            break
    if pos != len(data):
        raise ValueError("%d bytes after the state bundle" % (len(data) - pos))
    return states, jumps

class SClient:
    def __init__(self, sock, addr, now):
        self.sock, self.addr, self.buf = sock, addr, b""
        # READING 5: the text says UDP uses "the same port" but not how the
        # server learns a client's UDP address.  We read it as: the client's
        # UDP socket uses the same address and port number as its TCP
        # connection; if an acknowledgement arrives from another port of the
        # same IP (and only one client has that IP) we switch to that port.
        self.udp, self.next = addr, now
        self.sent = collections.OrderedDict()   # ticks whose snapshot we sent
        # newest ACK'd (and really sent) tick, newest sent tick, tick at
        # which object 100 is cloned
        self.acked, self.last, self.created = 0, 0, None

class Server:
    def __init__(self, host, port, mode):
        self.mode, self.start = mode, time.monotonic()
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.usock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for s in (self.lsock, self.usock):
            s.bind((host, port))
            s.setblocking(False)
        self.lsock.listen(16)
        self.clients = {}

    def realtime(self):
        return time.monotonic() - self.start

    def tick(self):
        # "Tick numbers should be one-based"
        return 1 + int(self.realtime() * TICKS_PER_SECOND)

    def send_tcp(self, c, t, payload):
        log("server", "send tcp %s len=%d to %s" % (tname(t), len(payload), c.addr))
        c.sock.sendall(pkt(t, payload))

    def send_udp(self, c, t, payload):
        # READING 6: one packet per datagram (the text does not say).
        log("server", "send udp %s len=%d to %s" % (tname(t), len(payload), c.udp))
        try:
            self.usock.sendto(pkt(t, payload), c.udp)
        except OSError as e:
            log("server", "udp send to %s failed: %s" % (c.udp, e))

    def drop(self, c, why):
        log("server", "client %s gone: %s" % (c.addr, why))
        self.clients.pop(c.sock, None)
        c.sock.close()

    def accept(self):
        try:
            sock, addr = self.lsock.accept()
        except OSError:
            return
        sock.settimeout(2.0)   # a client that never reads cannot block us
        # first snapshot one interval later, so the client has bound its UDP
        c = SClient(sock, addr, time.monotonic() + SNAPSHOT_INTERVAL)
        self.clients[sock] = c
        log("server", "client %s connected" % (addr,))
        try:
            # Handshake: the global DB table, one entry per packet, then
            # Load level with the table size.  READING 7: the text defines no
            # client->server handshake packet, so the server starts at once.
            for i, p in enumerate(DBS):
                self.send_tcp(c, DB_ENTRY, struct.pack(E + "I", i) + p.encode())
            n = len(DBS) + (1 if self.mode == "wrong-db-count" else 0)
            self.send_tcp(c, LOAD_LEVEL, struct.pack(E + "I", n) + LEVEL.encode())
            # a little ordinary reliable traffic: messages and events
            rt = self.realtime()
            self.send_tcp(c, GLOBAL_MSG, struct.pack(E + "Id", 1, rt) + b"welcome")
            self.send_tcp(c, OBJECT_MSG, struct.pack(E + "IIId", 2, 1, 2, rt) + b"hi")
            self.send_tcp(c, ANIMATION, struct.pack(E + "dIHHif", rt, 1, 0, 5, 0, 1.0))
            self.send_tcp(c, SOUND, struct.pack(E + "dHH", rt, 1, 7))
        except OSError as e:
            self.drop(c, str(e))

    @staticmethod
    def obj_states(oid, tick):
        # 1 moves along x and teleports back every 2 s, 2 is static and not
        # running, 3 blinks once a second, 100 (a clone of 1) moves along z
        pos = {1: ((tick % 120) * 0.05, 0.0, 0.0), 2: (5.0, 0.0, 0.0),
               3: (0.0, 5.0, 0.0), 100: (0.0, 0.0, (tick % 60) * 0.1)}[oid]
        return {0: pos, 1: (0.0, 0.0, 0.0, 1.0), 2: (1.0, 1.0, 1.0),
                3: oid != 3 or (tick // 60) % 2 == 0, 4: oid != 2}

    def snapshot(self, c):
        # READING 18: the text has no refusal, no ping and no password, so
        # the server accepts every client; snapshots go to every client.
        tick = max(self.tick(), c.last + 1)
        if c.created is None:
            c.created = tick + 6
        # only ACK'd snapshots as delta base; 0 = full snapshot.
        # delta-unacked (BROKEN): the previous snapshot, ACK'd or not.
        ref = {"always-full": 0, "delta-unacked": c.last}.get(self.mode, c.acked)
        changes = []
        for oid in [1, 2, 3] + ([100] if tick >= c.created else []):
            fresh = ref == 0 or (oid == 100 and ref < c.created)
            if oid == 100 and fresh:
                # "new objects can only be created as clones of existing objects"
                changes.append((CREATED, struct.pack(E + "QII", tick, 100, 1)))
                changes.append((LIFECYCLE, struct.pack(E + "QIB", tick, 100, 2)))
            cur, jumps, st = self.obj_states(oid, tick), set(), None
            if not fresh:
                prev = self.obj_states(oid, ref)
                st = {i: v for i, v in cur.items() if prev[i] != v}
                if oid == 1 and cur[0][0] < prev[0][0]:
                    jumps.add(0)   # teleport: do not interpolate
            st = cur if fresh else st
            if st:
                b = encode_bundle(st, BASIC_KINDS, jumps,
                                  combine=self.mode != "unpacked-bools")
                changes.append((STATE_CHANGED, struct.pack(E + "QI", tick, oid) + b))
        if self.mode == "extra-states":
            ex = {i: (float(i) + tick,) for i in range(10)}
            b = encode_bundle(ex, ["f32"] * 10, jumps={8})
            changes.append((EXTRA_CHANGED, struct.pack(E + "QI", tick, 1) + b))
        n = len(changes) + (1 if self.mode == "wrong-change-count" else 0)
        confirm = (CONFIRM, struct.pack(E + "QdIQ", tick, self.realtime(), n, ref))
        if self.mode == "confirm-first":
            random.shuffle(changes)
            changes.insert(0, confirm)
        else:
            changes.append(confirm)
        for t, p in changes:
            self.send_udp(c, t, p)
        c.sent[tick], c.last = True, tick
        while len(c.sent) > 600:
            c.sent.popitem(last=False)

    def handle(self, c, t, p, via):
        log("server", "recv %s %s len=%d from %s" % (via, tname(t), len(p), c.addr))
        # downlink packets from a client are dropped: "Thus, they are only
        # valid in the downlink. A client does not send state updates ..."
        err = size_error(t, p) or (t in DOWNLINK and "downlink-only " + tname(t))
        if err:
            warn("server", "VIOLATION: dropped from %s: %s" % (c.addr, err))
            return
        if t == ACK:
            # READING 9: ACK is not marked reliable, so it travels over UDP;
            # we still accept one over TCP (it costs nothing).
            (tick,) = struct.unpack(E + "Q", p)
            if tick in c.sent:
                c.acked = max(c.acked, tick)
            else:
                # a snapshot we never sent cannot be a delta base
                warn("server", "VIOLATION: ignored ACK of tick %d never sent to %s"
                     % (tick, c.addr))
        else:
            log("server", "%s %r" % (tname(t), struct.unpack(
                E + ("dIB" if t == ACTION else "dIff"), p)))

    def read_tcp(self, c):
        try:
            data = c.sock.recv(65536)
        except OSError:
            data = None
        if not data:
            self.drop(c, "closed or reset by client")
            return
        pkts, c.buf = split_packets(c.buf + data)
        for t, p in pkts:
            try:
                self.handle(c, t, p, "tcp")
            except Exception as e:   # never let one packet kill the server
                warn("server", "error handling packet: %r" % e)

    def read_udp(self):
        for _ in range(256):
            try:
                data, addr = self.usock.recvfrom(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                log("server", "udp recv error: %s" % e)
                continue
            try:
                pkts, rest = split_packets(data)
                c = next((c for c in self.clients.values() if c.udp == addr), None)
                if c is None:
                    same = [c for c in self.clients.values() if c.addr[0] == addr[0]]
                    if len(same) == 1 and any(
                            t == ACK and len(p) == 8 and
                            struct.unpack(E + "Q", p)[0] in same[0].sent
                            for t, p in pkts):
                        c = same[0]
                        c.udp = addr
                    else:
                        log("server", "datagram from unknown %s dropped" % (addr,))
                        continue
                if rest:
                    warn("server", "VIOLATION: %d truncated bytes in datagram from %s"
                         % (len(rest), addr))
                for t, p in pkts:
                    try:
                        self.handle(c, t, p, "udp")
                    except Exception as e:
                        warn("server", "error handling packet: %r" % e)
            except Exception as e:
                warn("server", "error handling datagram: %r" % e)

    def run(self):
        warn("server", "server listening on %s:%d mode=%s" % (self.lsock.getsockname() + (self.mode,)))
        while True:
            now = time.monotonic()
            timeout = 1.0
            for c in self.clients.values():
                timeout = min(timeout, max(0.0, c.next - now))
            rl = [self.lsock, self.usock] + list(self.clients)
            try:
                r, _, _ = select.select(rl, [], [], timeout)
            except (OSError, ValueError) as e:   # cannot happen; never spin
                warn("server", "select: %r" % e)
                time.sleep(0.01)
                continue
            for s in r:
                try:
                    if s is self.lsock:
                        self.accept()
                    elif s is self.usock:
                        self.read_udp()
                    elif s in self.clients:
                        self.read_tcp(self.clients[s])
                except Exception as e:
                    warn("server", "error: %r" % e)
            now = time.monotonic()
            for c in list(self.clients.values()):
                if now >= c.next:
                    try:
                        self.snapshot(c)
                    except Exception as e:
                        warn("server", "snapshot error: %r" % e)
                    c.next = max(c.next + SNAPSHOT_INTERVAL, now)

class Client:
    def __init__(self, host, port, mode, silence):
        self.host, self.port, self.mode, self.silence = host, port, mode, silence
        self.t0 = time.monotonic()
        self.dbs, self.local = {}, {}  # server global index -> path / local idx
        self.handshake_at = self.server_time = None  # (server rt, local time)
        self.snaps = {}          # tick -> [count, expected, ref, done]
        self.acked = set()       # ticks we acknowledged
        self.complete, self.latest_tick = 0, 1

    def now_server(self):
        # READING 10: uplink realtime uses our estimate of the server time
        # (last confirmation realtime + elapsed), local time before that.
        if self.server_time is None:
            return time.monotonic() - self.t0
        return self.server_time[0] + time.monotonic() - self.server_time[1]

    def send(self, t, payload, udp=False):
        log("client", "send %s %s len=%d" % ("udp" if udp else "tcp", tname(t), len(payload)))
        (self.udp.send if udp else self.tcp.sendall)(pkt(t, payload))

    def violation(self, msg):
        warn("client", "VIOLATION: " + msg)

    def on_handshake(self):
        # READING 15: the text lets the client "verify that it received a
        # complete database table" but not what to do if not; we end the
        # session (close TCP).  Later DB entries after Load level are kept.
        if len(self.dbs) != self.load_count:
            self.violation("incomplete database table: Load level says %d, "
                           "received %d entries" % (self.load_count, len(self.dbs)))
            return False
        # "A client will use the names to create a table that maps these
        # server DB indices to it's local DB indices."
        names = sorted(set(self.dbs.values()))
        self.local = {g: names.index(p) for g, p in self.dbs.items()}
        self.handshake_at = time.monotonic()
        log("client", "handshake complete: level %r, %d dbs" % (self.level, len(self.dbs)))
        self.send(ACTION, struct.pack(E + "dIB", self.now_server(), 1, 1))
        self.send(ANALOG, struct.pack(E + "dIff", self.now_server(), 2, 0.5, -0.25))
        if self.mode == "state-uplink":
            b = encode_bundle({0: (1.0, 2.0, 3.0)}, BASIC_KINDS)
            self.send(STATE_CHANGED, struct.pack(E + "QI", self.latest_tick, 1) + b, True)
        return True

    def finish_snapshot(self, tick, s):
        # READING 16: one "discrete change" = one change packet (State /
        # Extra State Changed, Created, Lifecycle) carrying the tick.  More
        # changes than confirmed never match, like loss ("will never match").
        # A delta against a tick we did not ACK cannot be decoded: dropped.
        count, expected, ref, done = s
        if done or expected is None or count != expected:
            return
        s[3] = True
        if ref and ref not in self.acked:
            self.violation("snapshot %d delta-encoded against tick %d which we "
                           "never acknowledged" % (tick, ref))
            return
        self.complete += 1
        log("client", "snapshot %d complete (%d changes, ref %d)" % (tick, count, ref))
        if self.mode != "no-ack":
            ack = tick + 1 if self.mode == "ack-wrong-tick" else tick
            self.send(ACK, struct.pack(E + "Q", ack), True)
            self.acked.add(ack)

    def handle(self, t, p, via):
        """Return False to end the session."""
        log("client", "recv %s %s len=%d" % (via, tname(t), len(p)))
        err = size_error(t, p) or (t in UPLINK and "uplink-only " + tname(t))
        if err:
            self.violation("dropped from server: " + err)
            return True
        if t == DB_ENTRY:
            # READING 14: the table entry has "u32 global_index" but the text
            # says the names are "associated with a 16-bit index": indices
            # above 0xFFFF are refused (dropped); the server uses 0..N-1.
            (idx,) = struct.unpack_from(E + "I", p)
            if idx > 0xFFFF:
                self.violation("global DB index %d does not fit 16 bits" % idx)
                return True
            self.dbs[idx] = p[4:].decode("utf-8", "replace")
        elif t == LOAD_LEVEL:
            (self.load_count,) = struct.unpack_from(E + "I", p)
            self.level = p[4:].decode("utf-8", "replace")
            if self.handshake_at is None:
                return self.on_handshake()
        elif t in CHANGES or t == CONFIRM:
            # READING 17: snapshot packets are accepted before the handshake
            # ends (UDP may overtake TCP) and over either transport; tick 0
            # is the "invalid tick" and is dropped.
            tick = struct.unpack_from(E + "Q", p)[0]
            if tick == 0:
                self.violation("%s with tick 0 (ticks are one-based)" % tname(t))
                return True
            if t == STATE_CHANGED:
                # READING 12: extra states are RFL-defined and cannot be
                # parsed here; only the basic states' bundle is checked.
                try:
                    decode_bundle(p[12:], BASIC_KINDS)
                except ValueError as e:
                    self.violation("malformed state bundle in tick %d: %s" % (tick, e))
                    return True
            elif t == LIFECYCLE and p[12] > 3:
                self.violation("unknown lifecycle state %d" % p[12])
                return True
            self.latest_tick = max(self.latest_tick, tick)
            s = self.snaps.setdefault(tick, [0, None, 0, False])
            if t != CONFIRM:
                s[0] += 1
            elif s[1] is None:   # a duplicated confirmation is ignored
                _, rt, s[1], s[2] = struct.unpack(E + "QdIQ", p)
                self.server_time = (rt, time.monotonic())
            self.finish_snapshot(tick, s)
            while len(self.snaps) > 300:
                del self.snaps[min(self.snaps)]
        elif t in (GLOBAL_MSG, OBJECT_MSG):
            log("client", "message %r" % p[SIZES[t][0]:])
        elif t in (ANIMATION, SOUND):
            db = struct.unpack_from(E + "H", p, 12 if t == ANIMATION else 8)[0]
            if db not in self.dbs:
                self.violation("gref names global DB index %d not in the table" % db)
        return True

    def safe_handle(self, t, p, via):
        try:
            return self.handle(t, p, via)
        except Exception as e:   # malformed input never crashes us
            warn("client", "error handling %s: %r" % (tname(t), e))
            return True

    def end(self):
        # READING 11: the text describes no in-band goodbye; a session ends
        # when the TCP connection is closed.
        try:
            if self.handshake_at is not None:   # release the pressed action
                self.send(ACTION, struct.pack(E + "dIB", self.now_server(), 1, 0))
            self.tcp.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def run(self):
        hard = self.t0 + 25.0
        # READING 5 (same port as TCP): the UDP socket is bound to the TCP
        # socket's port before the TCP connection is made, so that a server
        # sending its first snapshot the moment it accepts finds it bound.
        self.tcp = self.udp = None
        for _ in range(20):
            tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                tcp.bind(("0.0.0.0", 0))
                udp.bind(("0.0.0.0", tcp.getsockname()[1]))
            except OSError:
                tcp.close()
                udp.close()
                continue
            self.tcp, self.udp = tcp, udp
            break
        if self.tcp is None:
            warn("client", "no port free for both TCP and UDP")
            return 0
        try:
            self.tcp.settimeout(3.0)
            self.tcp.connect((self.host, self.port))
        except OSError as e:
            log("client", "connect failed: %s" % e)
            self.tcp.close()
            self.udp.close()
            return 0
        self.udp.connect((self.host, self.port))
        self.udp.setblocking(False)
        buf, last_rx = b"", time.monotonic()
        try:
            while True:
                now = time.monotonic()
                # READING 13: no handshake timeout in the text; we give up
                # after 5 s without a usable Load level
                if now >= hard or now - last_rx >= self.silence or (
                        self.handshake_at is None and now - self.t0 >= 5.0):
                    log("client", "silence/time limit, exiting")
                    return 0
                if self.handshake_at is not None and (
                        self.complete >= 3 or now - self.handshake_at >= 1.5):
                    self.end()
                    return 0
                timeout = min(hard - now, self.silence - (now - last_rx), 0.2)
                r, _, _ = select.select([self.tcp, self.udp], [], [], max(0.0, timeout))
                if self.tcp in r:
                    data = self.tcp.recv(65536)
                    if not data:
                        log("client", "server closed the connection")
                        return 0
                    last_rx = time.monotonic()
                    pkts, buf = split_packets(buf + data)
                    if not all(self.safe_handle(t, p, "tcp") for t, p in pkts):
                        self.end()
                        return 0
                if self.udp in r:
                    for _ in range(256):
                        try:
                            data = self.udp.recv(65536)
                        except (BlockingIOError, InterruptedError):
                            break
                        last_rx = time.monotonic()
                        pkts, rest = split_packets(data)
                        if rest:
                            self.violation("%d truncated bytes in datagram" % len(rest))
                        for t, p in pkts:
                            self.safe_handle(t, p, "udp")
        except (ConnectionRefusedError, ConnectionResetError, BrokenPipeError) as e:
            log("client", "connection ended: %s" % e)
            return 0
        except OSError as e:
            log("client", "socket error: %s" % e)
            return 0
        finally:
            log("client", "%d complete snapshots" % self.complete)
            self.tcp.close()
            self.udp.close()

def usage():
    sys.stderr.write(
        "usage: %s [--big-endian] [--type-base N] --listen HOST PORT MODE\n"
        "       %s [--big-endian] [--type-base N] HOST PORT MODE [SILENCE_MS]\n"
        "modes: %s\n" % (sys.argv[0], sys.argv[0], " ".join(MODES)))
    sys.exit(2)

def main():
    global E, TB
    args, listen = [], False
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--listen":
            listen = True
        elif a == "--big-endian":
            E = ">"
        elif a == "--type-base":
            try:
                TB = int(next(it))
            except (StopIteration, ValueError):
                usage()
        else:
            args.append(a)
    if len(args) < 3 or len(args) > (3 if listen else 4) or args[2] not in MODES:
        usage()
    try:
        host, port = args[0], int(args[1])
        silence = int(args[3]) / 1000.0 if len(args) == 4 else 1.0
    except ValueError:
        usage()
    if listen:
        try:
            Server(host, port, args[2]).run()
        except KeyboardInterrupt:
            return 0
    return Client(host, port, args[2], silence).run()

if __name__ == "__main__":
    sys.exit(main())
