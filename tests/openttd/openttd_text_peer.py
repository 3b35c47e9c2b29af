#!/usr/bin/env python3
"""OpenTTD TCP game-protocol test peer.

Written from the text "Network Protocol (old OpenTTD wiki)" alone, for tests
only. No source code, header (network_data.h, command.h, ...) or capture was
consulted; every value the text leaves to those headers is our own choice,
marked "READING" below. Only the TCP game protocol is implemented (no UDP).

  openttd_text_peer.py [--text-order] [--password PW] [--company-password PW] --listen HOST PORT MODE
  openttd_text_peer.py [--password PW] [--company-password PW] HOST PORT MODE [SILENCE_MS]
Game password default "secret", company password default "". Env
TEXTPEER_DEBUG=1 logs one line per packet to stderr.

MODES ("server only"/"client only": in the other role the mode acts as good)
good  Everything the text requires of the role (see the handlers).

Broken modes, each breaking exactly one sentence of the text:
  skip-game-info       client only: the first packet is CLIENT_JOIN. Breaks (The protocol)
      "PACKET_CLIENT_GAME_INFO | Request server-info (first packet, always needed)".
  getmap-before-auth   client: sends CLIENT_GETMAP right after the game-info reply, without
      JOIN/password; server: hands the map to an unauthorized client. Breaks (The protocol) "But
      before it gets the map, it needs authorization."
  ack-beyond-max       client only: CLIENT_ACK carries Frame Counter Max + 10. Breaks (How does it
      work?) "Because a client can never be beyond the max-frame, neither can the server, all
      DoCommands are executed on the same frame."
  command-after-frame  server only: SERVER_COMMAND is sent after (not before) the FRAME-packet
      whose max-frame is its frame of execution. Breaks (How does it work?) "Just before that, the
      server has sent all DoCommands for the max-frame in the FRAME-packet."
  no-self-join         server only: SERVER_JOIN goes to the other clients but not to the one who
      joined. Breaks (The protocol) "PACKET_SERVER_JOIN | A client is joined (also the client who
      just joined receives this message)".
  wrong-endian         both: every uint16/uint32 in packet bodies is sent with its bytes reversed
      (the length header, not in the text, is unchanged). Breaks (Endian) "So the byte order is
      ALWAYS 1 2 3 4."

Configuration modes (allowed by the text):
  password       server only: the game password is required. Relies on (Joining) "Then it verifies
      itself, gives his name and, if needed, passwords." and PACKET_SERVER_NEED_PASSWORD.
  full           server only: game-info shows Current clients == Max allowed clients; every
      CLIENT_JOIN is refused with SERVER_ERROR(FULL). Relies on (The protocol) "Uint8: Max allowed
      clients on the server" and "PACKET_SERVER_ERROR | The client, who receives this message, made
      an error".
  wait           server only: answers CLIENT_GETMAP with SERVER_WAIT(1), sends the map 0.5 s later.
      Relies on "PACKET_SERVER_WAIT | The client can not receive the map at the moment because
      someone else is already receiving the map".
  frame-freq     server only: frame_freq 4. Relies on (How does it work?) "the server sends out a
      FRAME-packet every X seconds, containing a max-frame of X+freq. Also, all DoCommands have the
      frame-of-execute set on X+freq."
  extra-seeds    server only: FRAME carries both optional general seeds, SYNC carries seed-2,
      sync_freq is 10. Relies on "[Uint32: general-seed-2] (last two depends on compile-settings,
      and are not default settings)" and (What is this desync?) "You can alter this with
      '*net_sync_freq = <number>'".
  newgrf         server only: game-info lists two NewGRFs. Relies on "From version 4: - Uint8:
      Number of active newgrfs (let number be NG)".
  shutdown       server only: 0.5 s after a client is playing, sends it SERVER_SHUTDOWN and closes
      it (and keeps listening). Relies on "PACKET_SERVER_SHUTDOWN | Let the clients know that the
      server is closing".
  quit-by-error  client only: ends with CLIENT_ERROR(GENERAL) instead of CLIENT_QUIT. Relies on
      "PACKET_CLIENT_ERROR | The client made an error and is quiting the game".
"""
import contextlib
import os
import select
import socket
import struct
import sys
import time

DEBUG = os.environ.get("TEXTPEER_DEBUG") == "1"
MODES = ["good", "skip-game-info", "getmap-before-auth", "ack-beyond-max",
         "command-after-frame", "no-self-join", "wrong-endian",
         "password", "full", "wait", "frame-freq", "extra-seeds", "newgrf",
         "shutdown", "quit-by-error"]

# READING (packet types, with --text-order; see WIRE NUMBERS): the text only says "for the real ID of a packet, check network_data.h
# (enum PacketType)". We number the packets in the order the text lists them, client table first
# ("Below first the packets the client can send to the server. After that, the packets the server
# can send to the client."), in one number space starting at 0.
NAMES = """CLIENT_GAME_INFO CLIENT_JOIN CLIENT_PASSWORD CLIENT_GETMAP
CLIENT_MAP_OK CLIENT_ACK CLIENT_COMMAND CLIENT_CHAT CLIENT_ERROR
CLIENT_SET_PASSWORD CLIENT_QUIT SERVER_CLIENT_INFO SERVER_GAME_INFO
SERVER_ERROR SERVER_NEED_PASSWORD SERVER_WELCOME SERVER_WAIT SERVER_MAP
SERVER_JOIN SERVER_FRAME SERVER_SYNC SERVER_COMMAND SERVER_CHAT
SERVER_ERROR_QUIT SERVER_QUIT SERVER_SHUTDOWN SERVER_NEWGAME""".split()
# WIRE NUMBERS (default; the READING above with --text-order): the packet numbers
# are the one fact taken from the project's wire notes (OpenTTD section, the
# "0.5-0.7 era (matches the wiki's packet set)" list). That list has no
# number for CLIENT_GAME_INFO and SERVER_GAME_INFO (the wiki's TCP server
# info): READING, they are numbered after the list's last packet (37), client
# first: 38, 39. Nothing else comes from there.
WIRE = {"CLIENT_JOIN": 2, "SERVER_ERROR": 3, "SERVER_CLIENT_INFO": 6, "SERVER_NEED_PASSWORD": 7,
        "CLIENT_PASSWORD": 8, "SERVER_WELCOME": 9, "CLIENT_GETMAP": 10, "SERVER_WAIT": 11,
        "SERVER_MAP": 12, "CLIENT_MAP_OK": 13, "SERVER_JOIN": 14, "SERVER_FRAME": 15,
        "SERVER_SYNC": 16, "CLIENT_ACK": 17, "CLIENT_COMMAND": 18, "SERVER_COMMAND": 19,
        "CLIENT_CHAT": 20, "SERVER_CHAT": 21, "CLIENT_SET_PASSWORD": 22, "CLIENT_QUIT": 24,
        "CLIENT_ERROR": 25, "SERVER_QUIT": 26, "SERVER_ERROR_QUIT": 27, "SERVER_SHUTDOWN": 28,
        "SERVER_NEWGAME": 29, "CLIENT_GAME_INFO": 38, "SERVER_GAME_INFO": 39}
P = {n: i for i, n in enumerate(NAMES)}
def set_numbers(text_order):
    """the wire number of each packet: P[name]; NAMES[number] its name"""
    global NAMES
    if not text_order:
        NAMES = [None] * 40
        for n, i in WIRE.items():
            NAMES[i] = n
        P.clear()
        P.update(WIRE)

# READING: NetworkErrorCode, NetworkAction, DestType, MAX_PLAYERS, MAX_TEXT_MSG_LEN, SEND_MTU and
# the MAP_PACKET_* values are deferred by the text to headers it does not reproduce; these are our
# own values (map sub-types numbered in the order named: START, NORMAL, END).
ERR = {"GENERAL": 0, "DESYNC": 1, "ILLEGAL_PACKET": 2, "NOT_AUTHORIZED": 3,
       "NOT_EXPECTED": 4, "WRONG_PASSWORD": 5, "FULL": 6}
ERRNAME = {v: k for k, v in ERR.items()}
ACTION_CHAT, DEST_BROADCAST, DEST_TEAM, DEST_CLIENT = 0, 0, 1, 2
MAX_PLAYERS, MAX_TEXT_MSG_LEN, SEND_MTU = 8, 150, 1460   # MTU: header included
MAP_START, MAP_NORMAL, MAP_END = 0, 1, 2
REVISION = "norev000"      # "(norev000 if no revision)"
# READING: the text never gives a frame length; 30 ms (~30 FRAME packets/s) matches the order of
# magnitude of "1.2 kbyte/sec" for net_frame_freq 1.
FRAME_S = 0.030
SYNC_FREQ = 100            # "By default, the seeds are checked once in the 100 frames."
SERVER_CID = 1             # "The index of the client (...  1 = server)"

def log(who, msg):
    sys.stderr.write("[openttd-text-%s] %s\n" % (who, msg))
    sys.stderr.flush()

class ProtoError(Exception):
    pass

# READING of (Endian) "we send first byte 1, then byte 2 ... the byte order is ALWAYS 1 2 3 4":
# byte 1 is the least significant one (little-endian), because the NewGRF IDs are singled out as
# having "opposite endianness! THey are big-endian numbers".
class W:
    swap = False           # wrong-endian mode
    def __init__(self): self.b = bytearray()
    def u8(self, v): return self.raw(bytes([v & 0xFF]))
    def u16(self, v): return self.raw(struct.pack(">H" if W.swap else "<H", v & 0xFFFF))
    def u32(self, v, be=False): return self.raw(struct.pack(">I" if be != W.swap else "<I", v & 0xFFFFFFFF))
    def s(self, text): return self.raw(text.encode("utf-8", "replace") + b"\0")  # "read it till you reach a zero"
    def raw(self, data):
        self.b += data
        return self

class R:
    def __init__(self, data): self.d, self.p = data, 0
    def u8(self): return self.take(1)[0]
    def u16(self): return struct.unpack("<H", self.take(2))[0]
    def u32(self, be=False): return struct.unpack(">I" if be else "<I", self.take(4))[0]
    def left(self): return len(self.d) - self.p
    def take(self, n):
        if self.p + n > len(self.d):
            raise ProtoError("packet too short")
        self.p += n
        return self.d[self.p - n:self.p]
    def s(self, maxlen=None):
        # READING: String[N] = at most N bytes including the zero (a C buffer of N chars). A string
        # without its zero makes the packet malformed.
        i = self.d.find(b"\0", self.p)
        if i < 0 or (maxlen is not None and i - self.p + 1 > maxlen):
            raise ProtoError("string without zero or longer than String[%s]" % maxlen)
        v, self.p = self.d[self.p:i].decode("utf-8", "replace"), i + 1
        return v

# READING (framing): the text never describes a packet header, yet packets go over a TCP byte
# stream, several carry no data ("<none>") and a map piece runs "till max-size of packet", so each
# packet must carry its size. We frame every packet as uint16 total length (3-byte header included,
# byte order 1 2 3 4 like all integers), uint8 packet type, then the data.
def pack(ptype, body=b""):
    return struct.pack("<HB", len(body) + 3, ptype) + bytes(body)

def unpack_stream(buf):
    while len(buf) >= 3:
        ln, pt = struct.unpack_from("<HB", buf)
        if ln < 3:
            raise ProtoError("packet length %d < 3" % ln)
        if len(buf) < ln:
            return
        body = bytes(buf[3:ln])
        del buf[:ln]
        yield pt, body

def pname(pt):
    return NAMES[pt] if pt < len(NAMES) and NAMES[pt] else "UNKNOWN(%d)" % pt

def read_command(r):
    # READING: "Uint32: decode_params < 10 times the last one (lengthof(cp->dp)) >" = ten uint32
    # values.
    return [r.u8(), r.u32(), r.u32(), r.u32(), r.u32(),
            [r.u32() for _ in range(10)], r.u8()]

def write_command(w, vals):   # vals: PlayerID, CommandID, P1, P2, Tile, [10 params], CallBackID
    w.u8(vals[0])
    for x in vals[1:5] + vals[5]:
        w.u32(x)
    return w.u8(vals[6])

# ----------------------------------------------------------------- server
class Conn:
    def __init__(self, sock):
        self.sock, self.buf, self.state = sock, bytearray(), "new"
        # states: new, info, needpw, authed, map, active, closed
        self.cid, self.name, self.playas, self.pw = None, "", 0, []  # pw: types still to ask
        self.queue = []       # SERVER_COMMAND bodies held during the map download
        self.last_max = 0     # highest Frame Counter Max sent to this client
        self.map_at = self.shutdown_at = None
        self.map_sent = False

class Server:
    def __init__(self, host, port, mode, password):
        self.mode, self.password = mode, password
        self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind((host, port))
        self.ls.listen(16)
        self.conns, self.company_pw = {}, {}
        self.frame, self.next_tick, self.next_cid = 1000, None, SERVER_CID + 1
        self.freq = 4 if mode == "frame-freq" else 1
        self.sync_freq = 10 if mode == "extra-seeds" else SYNC_FREQ
        self.pending = []     # client commands waiting for a frame-of-execute
        self.recent = []      # (exec_frame, body) of commands not yet executed
        # READING: no simulation runs here, nothing ever calls Random, so the general seeds stay
        # constant and every SYNC agrees.
        self.seed1, self.seed2 = 0x2468ACE1, 0x13579BDF
    def run(self):
        log("server", "listening on %s:%d, mode %s" % (self.ls.getsockname() + (self.mode,)))
        while True:
            cs = list(self.conns.values())
            dl = [t for c in cs for t in (c.map_at, c.shutdown_at) if t]
            dl += [self.next_tick] if self.next_tick is not None else []
            timeout = max(0.0, min(dl) - time.monotonic()) if dl else None   # idle: block
            try:
                rd = select.select([self.ls] + [c.sock for c in cs], [], [], timeout)[0]
            except (OSError, ValueError) as e:   # a socket went bad under us: drop it
                log("server", "select: %r" % e)
                [self.close(c) for c in cs if c.sock.fileno() < 0]
                continue
            for s in rd:
                if s in self.conns:
                    self.readable(self.conns[s])
                elif s is self.ls:
                    try: sock, addr = self.ls.accept()
                    except OSError: continue
                    sock.settimeout(2.0)   # a send blocks at most 2 s; reads follow select
                    self.conns[sock] = Conn(sock)
                    log("server", "connection from %s:%d" % addr)
            self.timers()
    def timers(self):
        now = time.monotonic()
        if not self.conns:
            self.next_tick = None
        elif self.next_tick is None or now - self.next_tick > 1.0:
            self.next_tick = now + FRAME_S
        while self.next_tick is not None and self.next_tick <= now:
            self.tick()
            self.next_tick += FRAME_S
        for c in list(self.conns.values()):
            try:
                if c.map_at and now >= c.map_at and c.state == "map":
                    self.send_map(c)
                if c.shutdown_at and now >= c.shutdown_at:
                    self.send(c, P["SERVER_SHUTDOWN"])
                    self.close(c, "shutdown sent")
            except Exception as e:  # never let one client kill the server
                log("server", "timer error: %r" % e)
                self.close(c)
    def readable(self, c):
        try: data = c.sock.recv(65536)
        except OSError: data = b""
        if not data:
            self.client_left(c, ERR["GENERAL"])
            return self.close(c, "connection closed by peer")
        c.buf += data
        try:
            for pt, body in unpack_stream(c.buf):
                if c.state == "closed":
                    return
                if DEBUG: log("server", "recv %s len=%d from cid %s" % (pname(pt), len(body) + 3, c.cid))
                try:
                    self.handle(c, pt, R(body))
                except ProtoError as e:
                    self.fail(c, "ILLEGAL_PACKET", "%s: %s" % (pname(pt), e))
                except Exception as e:
                    log("server", "error handling %s: %r" % (pname(pt), e))
                    self.fail(c, "GENERAL", repr(e))
        except ProtoError as e:      # unusable framing: nothing more can be read
            self.fail(c, "ILLEGAL_PACKET", str(e))
    def send(self, c, ptype, w=None):
        body = w.b if w is not None else b""
        if c.state == "closed":
            return
        if DEBUG: log("server", "send %s len=%d to cid %s" % (pname(ptype), len(body) + 3, c.cid))
        try:
            c.sock.sendall(pack(ptype, body))
        except OSError as e:
            self.close(c, "send failed: %r" % e)
    def close(self, c, why=""):
        log("server", "closing cid %s: %s" % (c.cid, why)) if why else None
        c.state = "closed"
        self.conns.pop(c.sock, None)
        with contextlib.suppress(OSError): c.sock.close()
    def active(self, but=None):
        return [o for o in list(self.conns.values()) if o.state == "active" and o is not but]
    def client_left(self, c, err):
        # "One of the clients made an error and is quiting the game. This packet informs the other
        # clients of that." READING: a connection dropped without QUIT is reported the same way,
        # with the general error code.
        for o in self.active(but=c) if c.state == "active" else []:
            self.send(o, P["SERVER_ERROR_QUIT"], W().u8(c.cid).u8(err))
    def fail(self, c, err, why):
        # Refuse/kick with "PACKET_SERVER_ERROR | The client, who receives this message, made an
        # error", then close. READING: the text does not say whether the connection stays open;
        # nothing useful can follow.
        log("server", "error %s to cid %s: %s" % (err, c.cid, why))
        self.send(c, P["SERVER_ERROR"], W().u8(ERR[err]))
        self.client_left(c, ERR[err])
        self.close(c)
    def alloc_cid(self):
        used = {o.cid for o in self.conns.values()}
        for _ in range(256):
            cid = self.next_cid
            self.next_cid = cid + 1 if cid < 255 else SERVER_CID + 1
            if cid not in used:
                return cid
        raise ProtoError("no free ClientID")
    def game_info(self):
        # Fields in the order listed: version-4 block first, then 3, 2, 1.
        grfs = [(0x54455854, bytes(range(16))), (0x50454552, bytes(range(16, 32)))] \
            if self.mode == "newgrf" else []
        w = W().u8(4).u8(len(grfs))
        for gid, md5 in grfs:
            # READING: the text says "Int256" for an "MD5sum"; an MD5 sum is 128 bits, so we send
            # 16 bytes (the text contradicts itself).
            w.u32(gid, be=True).raw(md5)
        w.u32(730000).u32(729000)                # current date, start date
        w.u8(MAX_PLAYERS).u8(0).u8(10)           # companies max/current, spectators max
        w.s("openttd text peer").s(REVISION).u8(0).u8(self.mode == "password")
        cur = len([o for o in self.conns.values() if o.cid is not None])
        w.u8(10).u8(10 if self.mode == "full" else min(cur, 255)).u8(0)
        # READING: "Uint16: ... (pre-version 3 only)" = the field is absent from version 3 on (the
        # version-3 uint32 dates replace it).
        return w.s("Random").u16(256).u16(256).u8(0).u8(1)
    def handle(self, c, pt, r):
        n, st = pname(pt), c.state
        if n == "CLIENT_GAME_INFO":
            # READING: answered in any state, on this same TCP connection, which stays open for the
            # join ("When a client joins, it first fetches some data from the server (game-info).
            # Then it verifies itself").
            self.send(c, P["SERVER_GAME_INFO"], self.game_info())
            c.state = "info" if st == "new" else st
        elif n == "CLIENT_JOIN":
            rev, name, playas, lang = r.s(), r.s(40), r.u8(), r.u8()
            if st != "info":
                return self.fail(c, "NOT_EXPECTED", "JOIN in state %s%s" % (
                    st, " (GAME_INFO: first packet, always needed)" * (st == "new")))
            if self.mode == "full":
                return self.fail(c, "FULL", "server is full (mode full)")
            # READING: the text says nothing about another revision or a Playas outside
            # 1..MAX_PLAYERS; we accept both (be liberal).
            c.name, c.playas = name, playas
            log("server", "join: rev=%r name=%r playas=%d lang=%d" % (rev, name, playas, lang))
            c.pw = [0] * (self.mode == "password") + [1] * bool(self.company_pw.get(playas))
            self.next_password(c)
        elif n == "CLIENT_PASSWORD":
            t, pw = r.u8(), r.s(20)
            if st != "needpw" or t != c.pw[0]:
                return self.fail(c, "NOT_EXPECTED", "unrequested password type %d" % t)
            if pw != (self.password if t == 0 else self.company_pw.get(c.playas, "")):
                return self.fail(c, "WRONG_PASSWORD", "wrong password")
            c.pw.pop(0)
            self.next_password(c)
        elif n == "CLIENT_GETMAP":
            early = st in ("new", "info", "needpw")
            if early and self.mode != "getmap-before-auth":
                return self.fail(c, "NOT_AUTHORIZED", "GETMAP before authorization")
            if not early and st != "authed":
                return self.fail(c, "NOT_EXPECTED", "GETMAP in state %s" % st)
            c.cid, c.state = c.cid or self.alloc_cid(), "map"
            # "At that moment, the server queues all new DoCommands for this client"; plus those
            # announced but not yet executed.
            c.queue = [b for (e, b) in self.recent if e > self.frame]
            if self.mode == "wait":
                self.send(c, P["SERVER_WAIT"], W().u8(1))
                c.map_at = time.monotonic() + 0.5
            else:
                self.send_map(c)
        elif n == "CLIENT_MAP_OK":
            if st != "map" or not c.map_sent:
                return self.fail(c, "NOT_EXPECTED", "MAP_OK in state %s" % st)
            c.state = "active"
            for o in self.active(but=c):
                self.send(o, P["SERVER_CLIENT_INFO"], W().u8(c.cid).u8(c.playas).s(c.name))
                self.send(o, P["SERVER_JOIN"], W().u8(c.cid))
            if self.mode != "no-self-join":
                self.send(c, P["SERVER_JOIN"], W().u8(c.cid))
            for body in c.queue:   # "the servers dequeues all the DoCommands"
                self.send(c, P["SERVER_COMMAND"], W().raw(body))
            c.queue = []
            if self.mode == "shutdown":
                c.shutdown_at = time.monotonic() + 0.5
        elif n == "CLIENT_ACK":
            f = r.u32()
            # "a client can never be beyond the max-frame". READING: handled like a desync:
            # "this client is then kicked out of the server".
            if self.playing(c, n) and f > c.last_max:
                self.fail(c, "DESYNC", "ACK of frame %d beyond max %d" % (f, c.last_max))
        elif n == "CLIENT_COMMAND":
            vals = read_command(r)
            # READING: no validation rule for PlayerID/CommandID is given; just schedule it.
            if self.playing(c, n):
                self.pending.append(vals)
        elif n == "CLIENT_SET_PASSWORD":
            pw = r.s(20)
            if self.playing(c, n):
                self.company_pw[c.playas] = pw
        elif n == "CLIENT_CHAT":
            action, dtype, dest, msg = r.u8(), r.u8(), r.u8(), r.s(MAX_TEXT_MSG_LEN)
            for o in self.active() if self.playing(c, n) else []:   # READING: echo to sender
                if o is c or dtype == DEST_BROADCAST or (dtype == DEST_TEAM and o.playas == dest) \
                        or (dtype == DEST_CLIENT and o.cid == dest):
                    self.send(o, P["SERVER_CHAT"], W().u8(action).u8(c.cid).s(msg))
        elif n == "CLIENT_ERROR":
            err = r.u8() if r.left() else ERR["GENERAL"]
            self.client_left(c, err)
            self.close(c, "client quits with error %d" % err)
        elif n == "CLIENT_QUIT":
            msg = r.s(100) if b"\0" in r.d else ""
            for o in self.active(but=c) if st == "active" else []:
                self.send(o, P["SERVER_QUIT"], W().u8(c.cid).s(msg))
            self.close(c, "quit: %r" % msg)
        else:
            self.fail(c, "ILLEGAL_PACKET", "unexpected packet type %s" % n)
    def playing(self, c, n):
        if c.state != "active":
            self.fail(c, "NOT_EXPECTED", "%s before MAP_OK" % n)
        return c.state == "active"
    def next_password(self, c):
        if c.pw:
            c.state = "needpw"
            return self.send(c, P["SERVER_NEED_PASSWORD"], W().u8(c.pw[0]))
        c.cid, c.state = self.alloc_cid(), "authed"
        self.send(c, P["SERVER_WELCOME"], W().u8(c.cid))
        # "you receive this packet during the whole game (whenever someone joins ...)": the server
        # itself, the players already in, then itself.
        self.send(c, P["SERVER_CLIENT_INFO"], W().u8(SERVER_CID).u8(1).s("server"))
        for o in self.active(but=c) + [c]:
            self.send(c, P["SERVER_CLIENT_INFO"], W().u8(o.cid).u8(o.playas).s(o.name))
    def send_map(self, c):
        c.map_at, c.last_max = None, self.frame
        self.send(c, P["SERVER_MAP"], W().u8(MAP_START).u32(self.frame))
        blob = bytes((i * 7) & 0xFF for i in range(5000))   # stand-in savegame
        piece = SEND_MTU - 4     # "piece of the map (till max-size of packet)"
        for i in range(0, len(blob), piece):
            self.send(c, P["SERVER_MAP"], W().u8(MAP_NORMAL).raw(blob[i:i + piece]))
        w = W().u8(MAP_END)
        for p in range(MAX_PLAYERS):
            w.u32(0x1000 + p).u32(0x2000 + p)
        self.send(c, P["SERVER_MAP"], w)
        c.map_sent = True
    def tick(self):
        self.frame += 1
        self.recent = [(e, b) for (e, b) in self.recent if e > self.frame]
        if self.frame % self.sync_freq == 0:
            w = W().u32(self.frame).u32(self.seed1)
            if self.mode == "extra-seeds":
                w.u32(self.seed2)
            for c in self.active():
                self.send(c, P["SERVER_SYNC"], w)
        if self.frame % self.freq:
            return
        fmax = self.frame + self.freq     # "containing a max-frame of X+freq"
        cmds = [bytes(write_command(W(), v).u32(fmax).b) for v in self.pending]
        self.recent += [(fmax, b) for b in cmds]
        self.pending = []
        for c in list(self.conns.values()):
            if c.state == "map":
                c.queue += cmds
        fw = W().u32(self.frame).u32(fmax)
        if self.mode == "extra-seeds":
            fw.u32(self.seed1).u32(self.seed2)
        late = self.mode == "command-after-frame"
        for c in self.active():
            for body in cmds if not late else []:
                self.send(c, P["SERVER_COMMAND"], W().raw(body))
            self.send(c, P["SERVER_FRAME"], fw)
            c.last_max = fmax
            for body in cmds if late else []:
                self.send(c, P["SERVER_COMMAND"], W().raw(body))

# ----------------------------------------------------------------- client
class Done(Exception):
    pass

class Client:
    def __init__(self, host, port, mode, silence, password, cpw):
        self.addr, self.mode = (host, port), mode
        self.silence, self.password, self.cpw = silence, password, cpw
        self.cid, self.frame = None, 0    # frame: how far we have 'walked'
        self.got_map = self.joined = self.cmd_seen = self.chat_seen = False
        self.traffic_at = self.quit_at = self.seed = None
    def send(self, ptype, w=None):
        body = w.b if w is not None else b""
        if DEBUG: log("client", "send %s len=%d" % (pname(ptype), len(body) + 3))
        self.sock.sendall(pack(ptype, body))
    def run(self):
        try:
            self.sock = socket.create_connection(self.addr, timeout=3)
        except OSError as e:
            log("client", "connect failed: %r" % e)
            return 0
        self.sock.settimeout(2.0)
        last_rx = time.monotonic()
        deadline, buf = last_rx + 25.0, bytearray()
        try:
            self.join() if self.mode == "skip-game-info" else self.send(P["CLIENT_GAME_INFO"])
            while True:
                now = time.monotonic()
                if self.quit_at and now >= self.quit_at:
                    self.quit()
                    raise Done("session ended by us")
                ends = [deadline, last_rx + self.silence] + [self.quit_at] * bool(self.quit_at)
                rd = select.select([self.sock], [], [], max(0.0, min(ends) - now))[0]
                now = time.monotonic()
                if not rd and now >= deadline:
                    raise Done("overall time limit")
                if not rd and now >= last_rx + self.silence:
                    raise Done("silence for %d ms" % (self.silence * 1000))
                data = self.sock.recv(65536) if rd else None
                if data == b"":
                    raise Done("connection closed by server")
                last_rx, buf = (now, buf + data) if data else (last_rx, buf)
                for pt, body in unpack_stream(buf):
                    if DEBUG: log("client", "recv %s len=%d" % (pname(pt), len(body) + 3))
                    try:
                        self.handle(pt, R(body))
                    except ProtoError as e:
                        # READING: "The client made an error and is quiting"; the only in-band way
                        # out, with an illegal-packet code.
                        log("client", "malformed %s: %s" % (pname(pt), e))
                        self.send(P["CLIENT_ERROR"], W().u8(ERR["ILLEGAL_PACKET"]))
                        raise Done("malformed packet")
        except Done as e:
            log("client", "exit: %s" % e)
        except (ProtoError, OSError) as e:
            log("client", "exit: %r" % e)
        if self.got_map and self.cid is not None and not self.joined:
            log("client", "note: never received SERVER_JOIN for own ClientID %d" % self.cid)
        self.sock.close()
        return 0
    def join(self):
        # Playas 1 ("between 1 and MAX_PLAYERS"); LanguageID 0 (READING: any).
        self.send(P["CLIENT_JOIN"], W().s(REVISION).s("textpeer").u8(1).u8(0))
    def quit(self):
        if self.mode == "quit-by-error":
            self.send(P["CLIENT_ERROR"], W().u8(ERR["GENERAL"]))
        else:
            self.send(P["CLIENT_QUIT"], W().s("bye from text peer"))
        # READING: nothing answers a QUIT; let the server read it, then close.
        try:
            self.sock.shutdown(socket.SHUT_WR)
            self.sock.settimeout(0.5)
            while self.sock.recv(65536):
                pass
        except OSError:
            pass
    def desync(self, why):
        # READING: the text only says a desynced client "is then kicked out of the server"; a
        # client that notices it first reports it and leaves.
        log("client", "desync: %s" % why)
        self.send(P["CLIENT_ERROR"], W().u8(ERR["DESYNC"]))
        raise Done("desync reported")
    def handle(self, pt, r):
        n = pname(pt)
        if n == "SERVER_GAME_INFO":
            ver = r.u8()
            for _ in range(r.u8() if ver >= 4 else 0):
                r.u32(be=True), r.take(16)
            r.take(8 * (ver >= 3) + 3 * (ver >= 2))   # dates; companies/spectators
            name, rev = r.s(), r.s()
            lang, haspw, maxc, cur, spec = [r.u8() for _ in range(5)]
            r.take(4 * (ver < 3))
            mapname, wdt, hgt, mset, ded = r.s(), r.u16(), r.u16(), r.u8(), r.u8()
            log("client", "game info v%d: %r rev %r pw=%d clients %d/%d map %r %dx%d"
                % (ver, name, rev, haspw, cur, maxc, mapname, wdt, hgt))
            self.send(P["CLIENT_GETMAP"]) if self.mode == "getmap-before-auth" else self.join()
        elif n == "SERVER_NEED_PASSWORD":
            t = r.u8()
            self.send(P["CLIENT_PASSWORD"], W().u8(t).s(self.password if t == 0 else self.cpw))
        elif n == "SERVER_WELCOME":
            self.cid = r.u8()
            self.send(P["CLIENT_GETMAP"])
        elif n == "SERVER_CLIENT_INFO":
            log("client", "client info: %d playas %d %r" % (r.u8(), r.u8(), r.s(40)))
        elif n == "SERVER_ERROR":
            err = r.u8()
            raise Done("server error %s" % ERRNAME.get(err, err))
        elif n == "SERVER_WAIT":
            # READING: the text does not say the client must ask again; we wait for the server to
            # start the map by itself.
            log("client", "waiting for map, %d clients awaiting" % r.u8())
        elif n == "SERVER_MAP":
            t = r.u8()
            if t == MAP_START:
                self.frame = r.u32()
            elif t == MAP_END:
                r.take(8 * MAX_PLAYERS)    # seed0/seed1 per player
                self.got_map = True
                # "tells the server that it is also done loading the map"
                self.send(P["CLIENT_MAP_OK"])
                if self.mode == "getmap-before-auth":
                    self.quit_at = time.monotonic()
            elif t != MAP_NORMAL:
                raise ProtoError("unknown map packet type %d" % t)
        elif n == "SERVER_JOIN":
            self.joined = self.joined or r.u8() == self.cid
        elif n == "SERVER_FRAME":
            fc, fmax = r.u32(), r.u32()    # optional seeds ("not default settings") ignored
            if fmax < self.frame:
                log("client", "FRAME max %d is behind our frame %d" % (fmax, self.frame))
            self.frame = max(self.frame, fmax)   # walk to the max-frame
            ack = self.frame + 10 * (self.mode == "ack-beyond-max")
            self.send(P["CLIENT_ACK"], W().u32(ack))   # "done with this frame"
            if self.traffic_at is None and self.got_map:
                self.traffic_at = time.monotonic()
                self.ordinary_traffic()
        elif n == "SERVER_SYNC":
            r.u32()
            seeds = [r.u32()] + ([r.u32()] if r.left() >= 4 else [])
            if self.seed is None:
                self.seed = seeds
            elif seeds != self.seed:   # READING: our game never calls Random
                self.desync("seeds %r != %r" % (seeds, self.seed))
        elif n == "SERVER_COMMAND":
            vals, exe = read_command(r), r.u32()
            # "When the clients hit that frame, it executes the DoCommand": a frame we already
            # walked to can no longer be honoured.
            if exe <= self.frame:
                self.desync("command for frame %d, we already are at %d" % (exe, self.frame))
            self.cmd_seen = self.cmd_seen or vals[1:3] == [0x7E57, 1]
        elif n == "SERVER_CHAT":
            action, cid, msg = r.u8(), r.u8(), r.s(MAX_TEXT_MSG_LEN)
            self.chat_seen = self.chat_seen or cid == self.cid
            log("client", "chat from %d: %r" % (cid, msg))
        elif n == "SERVER_ERROR_QUIT":
            log("client", "client %d left with error %d" % (r.u8(), r.u8()))
        elif n == "SERVER_QUIT":
            log("client", "client %d quit: %r" % (r.u8(), r.s()))
        elif n in ("SERVER_SHUTDOWN", "SERVER_NEWGAME"):
            raise Done("server sent %s" % n)   # READING: NEWGAME ends it too
        else:   # READING: the text says nothing about unknown packets; ignore.
            log("client", "ignoring unexpected packet %s" % n)
        if self.traffic_at and not self.quit_at and (
                (self.cmd_seen and self.chat_seen) or time.monotonic() > self.traffic_at + 1.5):
            self.quit_at = max(time.monotonic(), self.traffic_at + 1.0)
    def ordinary_traffic(self):
        # PlayerID = Playas - 1 (READING: Playas is 1..MAX_PLAYERS, PlayerID is 0..MAX_PLAYERS-1).
        # CommandID 0x7E57 is an arbitrary test value.
        self.send(P["CLIENT_COMMAND"], write_command(W(), [0, 0x7E57, 1, 2, 0x1234, [0] * 10, 0]))
        self.send(P["CLIENT_CHAT"],
                  W().u8(ACTION_CHAT).u8(DEST_BROADCAST).u8(1).s("hello from text peer"))

def usage():
    sys.stderr.write("usage: openttd_text_peer.py [--password PW] [--company-password PW] "
                     "--listen HOST PORT MODE | HOST PORT MODE [SILENCE_MS]\n"
                     "modes: %s\n" % " ".join(MODES))
    sys.exit(2)

def main(argv):
    listen, opts, pos = "--listen" in argv, {"--password": "secret", "--company-password": ""}, []
    set_numbers("--text-order" in argv)
    it = iter(a for a in argv if a not in ("--listen", "--text-order"))
    for a in it:
        if a in opts:
            opts[a] = next(it, None)
        if a.startswith("--") and opts.get(a) is None:
            usage()
        elif not a.startswith("--"):
            pos.append(a)
    if not 3 <= len(pos) <= (3 if listen else 4) or pos[2] not in MODES:
        usage()
    try:
        port = int(pos[1])
        silence = float(pos[3]) / 1000.0 if len(pos) > 3 else 1.0
    except ValueError:
        usage()
    W.swap = pos[2] == "wrong-endian"
    if listen:
        return Server(pos[0], port, pos[2], opts["--password"]).run()
    return Client(pos[0], port, pos[2], max(0.01, silence),
                  opts["--password"], opts["--company-password"]).run()

if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(0)
