#!/usr/bin/env python3
"""DNP (Drag[en]gine Network Protocol) test peer, client and server, over UDP.

Written from the text "Drag[en]gine Network Protocol Specification" alone,
for tests only.  Not a reference implementation; where the text is ambiguous
or silent, the reading taken is stated in a comment marked "READING:".

    dnp_text_peer.py --listen HOST PORT MODE      # server, runs until killed
    dnp_text_peer.py HOST PORT MODE [SILENCE_MS]  # client, one session
Optional flags: --idle-timeout SEC (server, default 10), --no-echo (server
does not echo messages), --no-link (client does not link a state).

MODE "good": the client sends Connection Request (resent every 1 s, up to
5 s), then an Unreliable Message, two Reliable Messages and a read-only Link
State, one Link Update after Link Up, and Close Connection once all is
acknowledged.  The server accepts DNP1 clients and, as its "application",
echoes every message (same reliability).  Both roles acknowledge reliable
commands (window, hold-back, duplicates ignored), accept valid Link States
with Link Up, resend reliable commands every 0.5 s and drop the connection
(Close Connection) after 3 s without acknowledgement.

BROKEN MODES (each breaks exactly one sentence; in the role where a mode does
not apply the peer behaves like "good"):
  no-ack (both roles) -- "Reliable Communication":
      "Every valid received command has to be acknowledged."
      (never sends a Reliable ack; commands are still processed.)
  seq-start-one (both roles) -- "Reliable Communication":
      "This value has to be set to `0` upon every accepted connection request."
      (NextSendCommand starts at 1; server: visible on the first echo.)
  no-resend (both roles) -- "Reliable Communication":
      "If a reliable command is not acknowledged before *ReliableResendInterval*
      (recommended 0.5s) the sender has to resend the same command."
  accept-out-of-window (both roles) -- "Reliable Communication":
      "If the command is not accepted it has to be discarded and processing
      this command stops."  (acknowledges commands outside the window.)
  reack-connected (server only) -- "Connection Request":
      "The server has to ignore connect requests for an already connected
      client."  (answers them again with Connection Ack, accepted, DNP1.)
  accept-unconnected (server only) -- "Connection Request":
      "This is the only command accepted by the server from an unconnected
      client."  (acknowledges Reliable Message / Link State from strangers.)

CONFIGURATION MODES (allowed by the text):
  refuse (server only) -- "Connection Ack": "The server accepts the connection
      if no other connection exists with the same hostname and port combination
      and no other server specific rules forbid the client from connecting."
      and "`1`: Connection rejected due to technical reasons or restrictions
      imposed on the client."  (every request gets Result Code 1.)
  decline-links (both roles) -- "Network States": "It is up to the application
      to decide if a link request is accepted or declined." and "The receiver
      has to send back a Link Up command if the link is accepted or a Link Down
      command to reject it."  (every Link State gets Link Down.)
  nack-first (both roles) -- "Reliable ack": "`1`: Receiving command failed.
      Used if the receiver would like sender to resend the message."  (first
      copy of each new reliable command: ResultCode 1, not processed.)
  server-link (server only) -- "Network States": "Both client and server can
      send link requests to the other side."  (links a read-only state to each
      new client; one Link Update after Link Up.)
  empty-update (both roles) -- "Link update": "Optionally the sender can update
      state values if they have recently changed but not more than their
      precision requires. This can be used as a kind of "keep-alive". In this
      case *LinkCount* is `0`."  (Link Update with LinkCount 0 on connecting
      and then every second.)
  kick (server only) -- "Close Connection": "Send by server before
      disconnecting client unless this is the client having send a close
      connection."  (disconnects every client 1 s after accepting it.)
"""
import os, select, socket, struct, sys, time
from collections import OrderedDict

DEBUG = os.environ.get("TEXTPEER_DEBUG") == "1"
MODES = ["good", "no-ack", "seq-start-one", "no-resend", "accept-out-of-window",
         "reack-connected", "accept-unconnected",                       # broken
         "refuse", "decline-links", "nack-first", "server-link", "empty-update", "kick"]
USAGE = ("usage: dnp_text_peer.py [--idle-timeout SEC] [--no-echo] [--no-link] "
         "(--listen HOST PORT MODE | HOST PORT MODE [SILENCE_MS]); MODE one of: "
         + ", ".join(MODES))

CONNECT_RESEND = 1.0     # "Connect Resend Interval (recommended 1s)"
CONNECT_TIMEOUT = 5.0    # "Connect Timeout (recommended 5s)"
REL_RESEND = 0.5         # "ReliableResendInterval (recommended 0.5s)"
REL_TIMEOUT = 3.0        # "ReliableTimeout (recommended 3s)"
WINDOW = 10              # "ReliableWindowSize is `10`"
PROTO_DNP1 = 0

(C_CONREQ, C_CONACK, C_CLOSE, C_MSG, C_RMSG, C_LINK, C_ACK, C_LUP, C_LDOWN,
 C_LUPD) = range(10)
# READING: the command table calls code 6 "Link Acknowledge" but its section is
# "Reliable ack" ("Used to acknowledge receiving a reliable message").  Code 6
# acknowledges every reliable command here, i.e. Reliable Message (4) and Link
# State (5), both of which carry a "Command sequence number".
NAMES = ["ConnectionRequest", "ConnectionAck", "Close", "Message", "ReliableMessage",
         "LinkState", "ReliableAck", "LinkUp", "LinkDown", "LinkUpdate"]

# State value data type code -> byte length ("State Value Data Types").
# READING: the table gives Point3S32/Point3U32/Point3S64/Point3U64 (25-28) a
# length of "3 bytes", contradicting "3-Component point with ... 32-bit (64-bit)
# ... values"; the component sizes are used (12, 12, 24, 24).
# READING: String (11) and Data (12) are "N bytes" with no length encoding
# given; a UInt16 length prefix (like String16) is assumed.  This peer never
# sends such values itself.
SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 8, 7: 8, 8: 2, 9: 4, 10: 8,
         11: None, 12: None, 13: 2, 14: 2, 15: 4, 16: 4, 17: 8, 18: 8, 19: 16,
         20: 16, 21: 3, 22: 3, 23: 6, 24: 6, 25: 12, 26: 12, 27: 24, 28: 24,
         29: 4, 30: 8, 31: 16, 32: 6, 33: 12, 34: 24, 35: 8, 36: 16, 37: 32}
DEMO_VALUES = [(1, b"\x07"), (9, struct.pack("<f", 1.5)), (2, struct.pack("<h", -3))]


class Malformed(Exception):    # not fully received: "has to be considered lost"
    pass


class UnknownType(Exception):  # state value type code not in the table
    pass


def log(*args):
    print("dnp_text_peer:", *args, file=sys.stderr, flush=True)


def dbg(direction, addr, data):
    if DEBUG:
        code = data[0] if data else None
        name = NAMES[code] if code is not None and code < len(NAMES) else "unknown(%r)" % code
        log("%s %s %s len=%d %s" % (direction, addr, name, len(data), data[:24].hex()))


def u16(data, off, what):
    if off + 2 > len(data):
        raise Malformed("%s truncated" % what)
    return struct.unpack_from("<H", data, off)[0]


def parse_values(buf, off, count):
    vals = []
    for _ in range(count):
        if off >= len(buf):
            raise Malformed("value list truncated")
        vtype, off = buf[off], off + 1
        if vtype not in SIZES:
            raise UnknownType(vtype)
        size = SIZES[vtype]
        if size is None and off + 2 <= len(buf):
            size = 2 + struct.unpack_from("<H", buf, off)[0]
        if size is None or off + size > len(buf):
            raise Malformed("value data truncated")
        vals.append((vtype, bytes(buf[off:off + size])))
        off += size
    return vals, off


def enc_values(vals):
    return b"".join(bytes([t]) + d for t, d in vals)


class Conn:
    """State of one established connection (either role)."""

    def __init__(self, role, addr, sendfn, mode, now, echo=True):
        self.role, self.addr, self.sendfn, self.mode, self.echo = role, addr, sendfn, mode, echo
        # "This value has to be set to `0` upon every accepted connection request."
        self.nsc = 1 if mode == "seq-start-one" else 0
        self.nrc = 0
        self.pending = OrderedDict()   # number -> [packet, first_sent, last_sent]
        self.queue = []                # (code, body) waiting for window space
        self.held = {}                 # number -> (code, payload), held back
        self.nacked = set()            # numbers answered with ResultCode 1
        self.own_links = {}            # LinkId we assigned -> dict
        self.peer_links = {}           # LinkId the other side assigned -> dict
        self.next_link_id = 0
        self.now = self.created = self.last_rx = self.last_empty_update = now

    def send(self, pkt):
        dbg("send", self.addr, pkt)
        self.sendfn(pkt)

    # ---- reliable sending ----
    def send_reliable(self, code=None, body=b""):
        if code is not None:         # no code: only flush the queue
            self.queue.append((code, body))
        # READING: the text only defines the receive window; this sender keeps
        # at most WINDOW numbers outstanding so each command fits the window.
        while self.queue and (not self.pending
                              or (self.nsc - next(iter(self.pending))) % 65536 < WINDOW):
            code, body = self.queue.pop(0)
            num, self.nsc = self.nsc, (self.nsc + 1) % 65536   # "wrapped around to `0`"
            pkt = struct.pack("<BH", code, num) + body
            self.pending[num] = [pkt, self.now, self.now]
            self.send(pkt)

    def tick(self, now):
        """Timers; returns a reason string if the connection must end."""
        self.now = now
        for num, p in list(self.pending.items()):
            if now - p[1] >= REL_TIMEOUT:
                # READING: "guaranteed to be delivered or else the connection is
                # interrupted" -> the caller sends Close Connection and drops it.
                return "reliable command %d not acknowledged within %.1fs" % (num, REL_TIMEOUT)
            if self.mode != "no-resend" and now - p[2] >= REL_RESEND:
                p[2] = now
                self.send(p[0])
        if self.mode == "empty-update" and now - self.last_empty_update >= 1.0:
            self.send_empty_update()
        return None

    def send_empty_update(self):
        self.last_empty_update = self.now
        self.send(struct.pack("<BH", C_LUPD, 0))

    # ---- receiving ----
    def ack(self, num, result):
        if self.mode != "no-ack":
            self.send(struct.pack("<BHB", C_ACK, num, result))

    def on_packet(self, data):
        """One datagram of an established connection; "closed" on Close."""
        self.last_rx = self.now
        code = data[0]
        if code == C_CLOSE:
            return "closed"          # READING: trailing bytes are ignored
        if code == C_MSG:
            self.app_message(bytes(data[1:]), False)
        elif code in (C_RMSG, C_LINK):
            num = u16(data, 1, "command number")
            payload = bytes(data[3:]) if code == C_RMSG else self.parse_link_state(data)
            self.on_reliable(num, code, payload)
        elif code == C_ACK:
            num, result = u16(data, 1, "ack"), data[3] if len(data) > 3 else None
            p = self.pending.get(num)
            if result is None:
                raise Malformed("ack without result code")
            if p is not None and result == 0:
                del self.pending[num]
                self.send_reliable()
            elif p is not None and result == 1:   # receiver asks for a resend
                p[2] = self.now
                self.send(p[0])
            # READING: stray acks and result codes other than 0/1 ("Has to be
            # one of these values") are ignored; resending continues.
        elif code in (C_LUP, C_LDOWN):
            lid = u16(data, 1, "link id")
            link = self.own_links.get(lid)
            if code == C_LUP:
                if link is not None and link["state"] == "pending":
                    link["state"] = "up"
                    self.app_link_up(lid, link)
            else:
                # READING: the text does not say whose LinkId space a Link Down
                # refers to (it both rejects a Link State and tears a link
                # down); the id is removed from both tables.
                self.own_links.pop(lid, None)
                self.peer_links.pop(lid, None)
        elif code == C_LUPD:
            self.on_link_update(data)
        # Connection Request/Ack here are handled by the caller; "Network
        # clients are required to ignore all commands with unknown *CommandCode*."
        return None

    def parse_link_state(self, data):
        lid = u16(data, 3, "link id")
        if len(data) < 6:
            raise Malformed("link state flags truncated")
        flags, mlen = data[5], u16(data, 6, "message length")
        msg = bytes(data[8:8 + mlen])
        vcount = u16(data, 8 + mlen, "value count")
        try:
            vals = parse_values(data, 10 + mlen, vcount)[0]
        except UnknownType as e:
            # READING: a value type not in the table cannot be set up "exactly
            # the same way", so the link is declined (Link Down); its length is
            # unknown, so the rest of the command cannot be checked.
            log("link state %d: unknown value type %s, will decline" % (lid, e))
            vals = None
        return (lid, flags, msg, vals)

    def on_reliable(self, num, code, payload):
        nrc = self.nrc
        # Literal rules of "Reliable Communication":
        #   if CommandNumber < NextReceiveCommand then valid if
        #       CommandNumber < (NextReceiveCommand + ReliableWindowSize) % 65535
        #   else valid if CommandNumber < NextReceiveCommand + ReliableWindowSize
        # READING: the modulus 65535 is kept as written although numbers wrap
        # at 65536; near the wrap it admits one number more (a distance of 10),
        # which is then held back like any command ahead of the expected one.
        # READING: for an old number (already processed, e.g. its ack was
        # lost) the first rule yields "valid", so it is acknowledged again but,
        # being a duplicate, not processed ("has to ignore duplicate").
        valid = num < (nrc + WINDOW) % 65535 if num < nrc else num < nrc + WINDOW
        if not valid:
            if self.mode == "accept-out-of-window":
                self.send(struct.pack("<BHB", C_ACK, num, 0))
            return                   # "has to be discarded"
        dist = (num - nrc) % 65536
        is_new = dist == 0 or (dist <= WINDOW and num not in self.held)
        if self.mode == "nack-first" and is_new and num not in self.nacked:
            self.nacked.add(num)
            self.ack(num, 1)
            return
        self.ack(num, 0)             # "Every valid received command has to be acknowledged."
        if dist == 0:
            self.held[num] = (code, payload)
            while self.nrc in self.held:  # process it and any held-back successors
                hcode, hpayload = self.held.pop(self.nrc)
                self.nacked.discard(self.nrc)
                self.nrc = (self.nrc + 1) % 65536
                self.deliver(hcode, hpayload)
        elif dist <= WINDOW:
            self.held.setdefault(num, (code, payload))
        # else: duplicate of an already processed command -> ignored

    def deliver(self, code, payload):
        if code == C_RMSG:
            return self.app_message(payload, True)
        lid, flags, msg, vals = payload
        if vals is None or self.mode == "decline-links":
            self.peer_links.pop(lid, None)
            return self.send(struct.pack("<BH", C_LDOWN, lid))
        # READING: a Link State reusing a LinkId that is still linked (which
        # the sender must not do) replaces the old link; Flags bits other than
        # 1 are not defined and are ignored.
        self.peer_links[lid] = {"flags": flags, "values": list(vals), "msg": msg}
        self.send(struct.pack("<BH", C_LUP, lid))

    def on_link_update(self, data):
        count, off, updates = u16(data, 1, "link count"), 3, []
        for _ in range(count):       # parse everything before applying anything
            lid, vcount = u16(data, off, "link id"), u16(data, off + 2, "value count")
            vals, off = parse_values(data, off + 4, vcount)
            updates.append((lid, vals))
        for lid, vals in updates:
            link = self.peer_links.get(lid)
            own = self.own_links.get(lid)
            if link is None and own is not None and own["state"] == "up" and not own["flags"] & 1:
                link = own
            if link is None:
                # "The sender has to ignore attempts of clients trying to update
                # states that are read-only to them." (unknown ids likewise)
                log("ignoring update of link %d (unknown or read-only)" % lid)
                continue
            # READING: ValueData carries no value index, so the ValueCount values
            # are taken as the first ValueCount values of the state, in order;
            # a type mismatch or too many values -> this link's update ignored.
            cur = link["values"]
            if len(vals) > len(cur) or any(v[0] != c[0] for v, c in zip(vals, cur)):
                log("ignoring update of link %d (does not match state)" % lid)
                continue
            cur[:len(vals)] = vals

    # ---- application ----
    def link_state(self, msg, flags, vals):
        lid, self.next_link_id = self.next_link_id, (self.next_link_id + 1) % 65536
        self.own_links[lid] = {"flags": flags, "values": list(vals), "state": "pending"}
        self.send_reliable(C_LINK, struct.pack("<HBH", lid, flags, len(msg)) + msg
                           + struct.pack("<H", len(vals)) + enc_values(vals))

    def app_link_up(self, lid, link):
        # The side that linked the state may update it once Link Up arrived.
        new = [(t, bytes([(d[0] + 1) & 0xFF]) + d[1:]) for t, d in link["values"]]
        link["values"] = new
        self.send(struct.pack("<BHHH", C_LUPD, 1, lid, len(new)) + enc_values(new))

    def app_message(self, data, reliable):
        # READING: the text says nothing about what the application does with
        # messages; the server application echoes them (same reliability).
        if self.role == "server" and self.echo:
            if reliable:
                self.send_reliable(C_RMSG, data)
            else:
                self.send(bytes([C_MSG]) + data)


# ---- server ----
def run_server(host, port, mode, idle_timeout, echo):
    ai = socket.getaddrinfo(host, port, 0, socket.SOCK_DGRAM)[0]
    sock = socket.socket(ai[0], socket.SOCK_DGRAM)
    sock.bind(ai[4])
    log("server listening on %s:%d mode=%s" % (host, port, mode))
    conns = {}

    def sender(addr):
        def sendfn(pkt):
            try:
                sock.sendto(pkt, addr)
            except OSError as e:
                log("sendto %s failed: %s" % (addr, e))
        return sendfn

    def raw_send(addr, pkt):
        dbg("send", addr, pkt)
        sender(addr)(pkt)

    def drop(addr, why, send_close=True):
        conn = conns.pop(addr, None)
        if conn is not None:
            log("client %s disconnected: %s" % (addr, why))
            if send_close:   # "Send by server before disconnecting client unless
                conn.send(bytes([C_CLOSE]))  # this is the client having send a close"

    def handle(data, addr, now):
        if not data:
            return                   # empty datagram: no CommandCode, ignored
        code, conn = data[0], conns.get(addr)
        if conn is not None:
            if code == C_CONREQ:
                # "The server has to ignore connect requests for an already
                # connected client." (unless mode reack-connected)
                if mode == "reack-connected":
                    raw_send(addr, struct.pack("<BBH", C_CONACK, 0, PROTO_DNP1))
                return
            conn.now = now
            if conn.on_packet(data) == "closed":
                drop(addr, "client sent Close Connection", send_close=False)
        elif code == C_CONREQ:
            count = u16(data, 1, "protocol count")
            if 3 + 2 * count > len(data):
                raise Malformed("protocol list truncated")
            protos = struct.unpack_from("<%dH" % count, data, 3)
            # "Servers have to ignore unknown protocol values."  Only DNP1 known.
            # A rejected client is not remembered ("has to forget about the
            # connect request after sending the answer").
            if mode == "refuse":
                raw_send(addr, struct.pack("<BB", C_CONACK, 1))
            elif PROTO_DNP1 not in protos:
                raw_send(addr, struct.pack("<BB", C_CONACK, 2))
            else:
                conn = conns[addr] = Conn("server", addr, sender(addr), mode, now, echo)
                log("client %s connected" % (addr,))
                conn.send(struct.pack("<BBH", C_CONACK, 0, PROTO_DNP1))
                if mode == "server-link":
                    conn.link_state(b"server-state", 1,
                                    [(3, struct.pack("<H", 1234)), (9, struct.pack("<f", 0.5))])
                if mode == "empty-update":
                    conn.send_empty_update()
        elif mode == "accept-unconnected" and code in (C_RMSG, C_LINK):
            raw_send(addr, struct.pack("<BHB", C_ACK, u16(data, 1, "number"), 0))
        # "This is the only command accepted by the server from an unconnected
        # client." -> everything else from unknown addresses is ignored.

    while True:
        try:
            readable = select.select([sock], [], [], 0.1)[0]
        except InterruptedError:
            continue
        now = time.monotonic()
        if readable:
            try:
                data, addr = sock.recvfrom(65535)
                dbg("recv", addr, data)
                handle(data, addr, now)
            except Exception as e:   # never let one datagram kill the server
                log("dropped datagram: %s: %s" % (type(e).__name__, e))
        for addr, conn in list(conns.items()):
            try:
                why = conn.tick(now)
                if why is None and now - conn.last_rx >= idle_timeout:
                    # READING: the text defines no keep-alive ("client and server
                    # have to figure out connection loss using other means"); a
                    # silent client is dropped after idle_timeout.
                    why = "silent for %.1fs" % idle_timeout
                if why is None and mode == "kick" and now - conn.created >= 1.0:
                    why = "kicked (mode kick)"
                if why is not None:
                    drop(addr, why)
            except Exception as e:
                log("error on connection %s: %s" % (addr, e))
                conns.pop(addr, None)


# ---- client ----
def run_client(host, port, mode, silence, do_link):
    ai = socket.getaddrinfo(host, port, 0, socket.SOCK_DGRAM)[0]
    sock = socket.socket(ai[0], socket.SOCK_DGRAM)
    sock.connect(ai[4])              # connected: ICMP unreachable -> ECONNREFUSED
    addr, refused, conn = "%s:%d" % (host, port), [], None

    def sendfn(pkt):
        dbg("send", addr, pkt)
        try:
            sock.send(pkt)
        except ConnectionRefusedError:
            refused.append(True)
        except OSError as e:
            log("send failed: %s" % e)

    def finish(why):
        if conn is not None:         # "Send by the client before closing connection"
            conn.send(bytes([C_CLOSE]))
        log("client session ended: %s" % why)
        return 0

    start = last_request = last_rx = time.monotonic()
    request = struct.pack("<BHH", C_CONREQ, 1, PROTO_DNP1)   # ProtocolCount=1: DNP1
    sendfn(request)
    while True:
        now = time.monotonic()
        if refused:
            conn = None
            return finish("connection refused (ICMP port unreachable)")
        if now - start >= 25.0:      # never run longer than 30 s
            return finish("hard time limit")
        if now - last_rx >= silence:
            return finish("nothing received for %d ms" % int(silence * 1000))
        if conn is None:
            if now - start >= CONNECT_TIMEOUT:   # "report connect timeout error"
                return finish("connect timeout")
            if now - last_request >= CONNECT_RESEND:
                sendfn(request)
                last_request = now
        else:
            why = conn.tick(now)
            if why is not None:
                return finish(why)
            busy = (conn.pending or conn.queue
                    or any(l["state"] == "pending" for l in conn.own_links.values()))
            if not busy and now - conn.last_rx >= 0.3:
                return finish("done")
            if now - conn.created >= 4.0:
                return finish("session time limit")
        try:
            if not select.select([sock], [], [], 0.05)[0]:
                continue
            data = sock.recv(65535)
        except InterruptedError:
            continue
        except OSError as e:         # ConnectionRefusedError: ICMP port unreachable
            conn = None              # no Close: the other side is gone
            return finish("connection refused / receive failed: %s" % e)
        now = last_rx = time.monotonic()
        dbg("recv", addr, data)
        try:
            if not data or data[0] in (C_CONREQ, C_CONACK) and conn is not None:
                continue             # empty, duplicate ack or nonsense: ignored
            if conn is None:
                if data[0] != C_CONACK or len(data) < 2:
                    continue         # nothing else is meaningful before the ack
                if data[1] != 0:
                    # "All unknown result codes have to be treated is if
                    # *ResultCode* had been `1`."
                    kind = "no common protocol" if data[1] == 2 else "rejected"
                    return finish("connection refused, result %d (%s)" % (data[1], kind))
                proto = u16(data, 2, "selected protocol")
                conn = Conn("client", addr, sendfn, mode, now)
                if proto != PROTO_DNP1:
                    # READING: a protocol the client did not offer cannot be
                    # spoken; the client closes the connection.
                    return finish("server selected unsupported protocol %d" % proto)
                log("connected to %s" % addr)
                if mode == "empty-update":
                    conn.send_empty_update()
                conn.send(bytes([C_MSG]) + b"dnp text peer: unreliable hello")
                conn.send_reliable(C_RMSG, b"dnp text peer: reliable hello 1")
                conn.send_reliable(C_RMSG, b"dnp text peer: reliable hello 2")
                if do_link:
                    conn.link_state(b"client-state", 1, DEMO_VALUES)
            else:
                conn.now = now
                if conn.on_packet(data) == "closed":
                    conn = None
                    return finish("server sent Close Connection")
        except Exception as e:
            log("dropped datagram: %s: %s" % (type(e).__name__, e))


def main(argv):
    idle_timeout, echo, do_link, listen, pos = 10.0, True, True, False, []
    try:
        args = list(argv)
        while args:
            a = args.pop(0)
            if a == "--listen":
                listen = True
            elif a == "--idle-timeout":
                idle_timeout = float(args.pop(0))
            elif a in ("--no-echo", "--no-link"):
                echo, do_link = echo and a != "--no-echo", do_link and a != "--no-link"
            else:
                pos.append(a)
        if len(pos) not in ((3,) if listen else (3, 4)) or pos[2] not in MODES:
            raise ValueError("bad arguments or unknown mode")
        host, port, mode = pos[0], int(pos[1]), pos[2]
        silence = int(pos[3]) / 1000.0 if len(pos) == 4 else 1.0
    except (ValueError, IndexError) as e:
        print(USAGE, file=sys.stderr)
        log(str(e))
        return 2
    if listen:
        run_server(host, port, mode, idle_timeout, echo)
        return 0
    return run_client(host, port, mode, max(silence, 0.05), do_link)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(0)
