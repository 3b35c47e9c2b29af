#!/usr/bin/env python3
"""Written from the text "The GNE Protocol, Version 1, Sixth Draft, August 2, 2005"
alone, for tests only.

GNE (protocol version 1) test peer.  Not a reference implementation; several layouts
had to be reconstructed because the text's field tables are missing (see the
"READINGS" comments below).

Usage:
    gne_text_peer.py --listen HOST PORT MODE       # server, runs until killed
    gne_text_peer.py HOST PORT MODE [SILENCE_MS]   # client, one session
Options (anywhere): --game NAME (default 'textpeer'), --version N (user
version, guint32, default 0), --gne-version A.B.C (default 1.0.0),
--rate N (our max incoming rate in bytes/s sent in CRP/CAP, default 0).

MODES
  good  -- does what the text requires of its role; replies to pings.

  Deliberately broken (each breaks exactly one sentence; roles not listed
  behave like "good"):
  accept-mismatch      (server) accepts a CRP whose versions/game differ.
      Breaks "The Second Packet -- Server to Client": "It must refuse the
      connection if any of the versions do not match."
  short-handshake      client: sends a 47-byte CRP (unreliable-flag byte
      left off).  Breaks "The First Packet -- Client to Server": "the client
      (connecting machine) sends a packet with the following information
      called the connection request packet (CRP) with an exact size of 48
      bytes."  server: sends an 11-byte CAP (port truncated).  Breaks "The
      Second Packet": "it sends a connection accepted packet (CAP) of exactly
      8 or more bytes, or exactly 12 when using the TCP/UDP or IPX/SPX
      protocols".
  game-not-zero-padded the 32-byte game string is NUL-terminated but the
      rest of the buffer is filled with 'x' (client: in the CRP; server: in
      its refusal).  Breaks "The First Packet", game string notes: "Any
      unused space in the buffer shall consist of bytes with the value of 0."
  ping-t2-gt-t3        ping replies carry T2 = T3 + 0.5 s.  Breaks
      "Packet:PingPacket ID: 4": "T2 must be <= T3."
  ping-bad-usec        ping replies encode T3 with a microseconds part of
      1,000,000 or more (seconds lowered by one, so the value is unchanged).
      Breaks "Data Formats", gtime: "This value must be in the range
      [0, 999,999]."
  ping-request-nonzero ping requests carry T2 = T3 = now instead of zero.
      Breaks "Packet:PingPacket ID: 4": "In the request packet, T2 and T3 are
      to have time values of 0s, 0ms."

  Configuration modes (allowed by the text):
  refuse       (server) refuses every connection with the refusal packet.
      Relies on "The Second Packet": "If can also refuse the connection for
      any other reason it wishes (i.e. a server may choose to allow only IP
      adresses in its subnet or maybe it is too busy)."
  udp          client requests the unreliable link, server grants it; each
      side then also sends a ping over UDP.  Relies on "The client requests
      an unreliable port by sending a value of true in appropriate field of
      the CRP." and "The Final Packets" (port packet, optional 255 datagram).
      In every other mode the server declines UDP, relying on "If the client
      did not request an unreliable connection, or the server refused it,
      then the client considers the connection complete as soon as it
      receives the CAP."
  rate-limit   announces a max incoming rate of 4000 B/s (or --rate) in the
      CRP/CAP and then sends a RateAdjustPacket of 2000 B/s.  Relies on "The
      peer is also allowed to change this rate up and down at any time by
      sending a RateAdjustPacket over the reliable connection."
  no-ping-reply never answers PingPackets.  Relies on "A GNE implementation
      is encouraged to reply to the ping." (encouraged, not required).
  no-exit      (client) closes the TCP connection without an ExitPacket.
      Relies on "it should send a valid GNE-level packet consisting of a
      ExitPacket over the reliable connection as its last data if possible"
      (should/if possible, not must).
"""
import math
import os
import select
import signal
import socket
import struct
import sys
import threading
import time

BROKEN = ['accept-mismatch', 'short-handshake', 'game-not-zero-padded',
          'ping-t2-gt-t3', 'ping-bad-usec', 'ping-request-nonzero']
CONFIG = ['refuse', 'udp', 'rate-limit', 'no-ping-reply', 'no-exit']
MODES = ['good'] + BROKEN + CONFIG
USAGE = ("usage: gne_text_peer.py [--game NAME] [--version N] [--gne-version A.B.C]"
         " [--rate N] (--listen HOST PORT MODE | HOST PORT MODE [SILENCE_MS]);"
         " MODE is one of: " + ", ".join(MODES))

DEBUG = os.environ.get('TEXTPEER_DEBUG') == '1'

# READING (header): the CRP/refusal/CAP tables are missing from the text.  The
# text says all three "start with a header" and gives sizes 48, 44 and 8/12.
# Fields named in prose: GNE version "version.sub.build" whose first two parts
# are guint8 and which "uses the same amount of space (32 bits)" as the user
# version (so build is a guint16), the 32-byte game string, the guint32 user
# version, the max incoming rate (guint32, as in RateAdjustPacket) and the
# gbool "request unreliable".  4+32+4+4+1 = 45, so the header is 3 bytes; we
# use the ASCII bytes 'G','N','E'.  Refusal: 3 + 1 + 40 = 44, so after the
# header comes a 1-byte gbool "accepted" (0 = refused) and then the server's
# versions.  CAP: 3 + 1 (gbool 1) + guint32 rate = 8, + gint32 port = 12.
# Field order chosen: GNE version, game string, user version (order of the
# prose), then rate, then the gbool.
HEADER = b'GNE'
P_PACKET, P_CUSTOM, P_EXIT, P_RATE, P_PING, P_END = 0, 1, 2, 3, 4, 255
SERVER_PING_BASE = 0x80000000  # READING: see Conn.__init__


def dbg(msg):
    if DEBUG:
        print('[gne-textpeer] ' + msg, file=sys.stderr, flush=True)


def log(msg):
    print('[gne-textpeer] ' + msg, file=sys.stderr, flush=True)


class Cfg:
    mode = 'good'
    game = 'textpeer'
    user_ver = 0
    gne_ver = (1, 0, 0)  # "the version number for a final production GNE
    #                      implementation of this protocol should be 1.0.0"
    rate = 0             # "the value of zero ... means that no rate limiting"


def game_field(cfg):
    name = cfg.game.encode('ascii', 'replace')[:31]
    pad = b'x' if cfg.mode == 'game-not-zero-padded' else b'\0'
    return name + b'\0' + pad * (31 - len(name))


def versions(cfg):
    a, b, c = cfg.gne_ver
    return struct.pack('<BBH', a, b, c) + game_field(cfg) + struct.pack('<I', cfg.user_ver)


def parse_versions(d):
    a, b, c = struct.unpack_from('<BBH', d, 0)
    game = d[4:36]
    (uv,) = struct.unpack_from('<I', d, 36)
    # READING: game compared as the string before its first NUL; non-zero
    # padding is only warned about (lenient receiver).
    name = game.split(b'\0', 1)[0]
    if b'\0' not in game or game[len(name):].strip(b'\0'):
        log('warning: game string not NUL-terminated/zero-padded: %r' % game)
    return (a, b, c), name, uv


def gtime(t, bad_usec=False):
    s = math.floor(t)
    us = int((t - s) * 1e6)
    us = min(max(us, 0), 999999)
    if bad_usec:
        s, us = s - 1, us + 1000000
    return struct.pack('<ii', s, us)


def now():
    # READING: "relative to any point in time the server chooses" and the
    # epoch "must remain the same for the whole connection": a monotonic clock
    # offset by 1000 s, so a reply time can never be 0s,0us (which would look
    # like a request).
    return time.monotonic() + 1000.0


def frame(content):
    # "the two bytes 'N', and 'L', and a 16 bit packet content length in
    # big-endian format followed by the content"
    if len(content) > 0xFFFF:
        raise ValueError('frame too long')
    return b'NL' + struct.pack('>H', len(content)) + content


class Closed(Exception):
    pass


class Conn:
    """One GNE connection (either role) after the TCP socket exists."""

    def __init__(self, sock, cfg, role):
        self.sock, self.cfg, self.role = sock, cfg, role
        self.usock = None
        self.uaddr = None
        self.peer_ip = None
        self.rbuf = b''
        self.peer_rate = 0          # what the peer asked us not to exceed
        self.sent_log = []          # (time, bytes) for the last second
        self.exit_seen = False
        self.eof = False
        # READING: "should be unique for a given connection whether sent by
        # GNE or the user" - both ends pick IDs independently, so the server
        # uses a disjoint range to lower the chance of a collision.
        self.next_ping = SERVER_PING_BASE + 1 if role == 'server' else 1
        self.pending_pings = set()

    # ---- sending -------------------------------------------------------
    def throttle(self, n):
        # "the peer should not transmit more than approximately that many
        # bytes per second" - READING: counted on whole frames/datagrams.
        if not self.peer_rate:
            return
        while True:
            t = time.monotonic()
            self.sent_log = [(ts, b) for ts, b in self.sent_log if t - ts < 1.0]
            used = sum(b for _, b in self.sent_log)
            if not self.sent_log or used + n <= self.peer_rate:
                break
            time.sleep(max(0.01, 1.0 - (t - self.sent_log[0][0])))
        self.sent_log.append((time.monotonic(), n))

    def send_raw(self, content, what, throttle=True):
        data = frame(content)
        if throttle:
            self.throttle(len(data))
        self.sock.sendall(data)
        dbg('%s sent TCP %s (%d bytes): %s' % (self.role, what, len(content), content.hex()))

    def send_gne(self, packets, what, udp=False):
        # READING: the GNE-level table is missing; from "The id 255
        # represents the end of the GNE-level packet" and the firewall packet
        # "a single packet of a single guint8 with a value of 255", a
        # GNE-level packet is the user-level packets back to back followed
        # by one byte 255.  Each GNE-level packet is one NL frame on TCP and
        # one bare datagram on UDP (NL_UNRELIABLE has no NL header).
        content = b''.join(packets) + bytes([P_END])
        if udp:
            if not (self.usock and self.uaddr):
                return
            self.throttle(len(content))
            try:
                self.usock.sendto(content, self.uaddr)
            except ConnectionRefusedError:
                if self.role == 'client':
                    raise Closed('ICMP port unreachable on UDP')
                log('server: UDP send refused (ICMP port unreachable)')
                return
            except OSError as e:
                log('%s UDP send failed: %s' % (self.role, e))
                return
            dbg('%s sent UDP %s (%d bytes): %s' % (self.role, what, len(content), content.hex()))
        else:
            self.send_raw(content, what)

    def ping_request(self, udp=False):
        pid = self.next_ping
        self.next_ping = (self.next_ping + 1) & 0xFFFFFFFF
        if self.cfg.mode == 'ping-request-nonzero':
            t = gtime(now())
            times = t + t
        else:
            times = b'\0' * 16
        if not udp:
            self.pending_pings.add(pid)
        self.send_gne([struct.pack('<BI', P_PING, pid) + times],
                      'PingPacket request id=%d' % pid, udp)

    def send_exit(self):
        self.send_gne([bytes([P_EXIT])], 'ExitPacket')

    # ---- receiving -----------------------------------------------------
    def wait(self, timeout):
        """Returns a list of (link, content, recv_time); [] on timeout.
        Raises Closed on EOF/reset/ICMP refusal."""
        end = time.monotonic() + timeout
        out = self._frames()
        while not out:
            left = end - time.monotonic()
            if left <= 0:
                return []
            rl = [self.sock] + ([self.usock] if self.usock else [])
            r, _, _ = select.select(rl, [], [], left)
            t = now()
            if self.sock in r:
                try:
                    data = self.sock.recv(65536)
                except OSError as e:
                    raise Closed('TCP error: %s' % e)
                if not data:
                    raise Closed('TCP closed by peer')
                self.rbuf += data
                out = self._frames(t)
            if self.usock is not None and self.usock in r:
                try:
                    d, addr = self.usock.recvfrom(65536)
                except ConnectionRefusedError:
                    raise Closed('ICMP port unreachable on UDP')
                except OSError as e:
                    log('%s UDP recv error: %s' % (self.role, e))
                    continue
                if self.peer_ip and addr[0] != self.peer_ip:
                    dbg('%s ignored UDP from stranger %s' % (self.role, addr))
                    continue
                dbg('%s received UDP datagram (%d bytes): %s' % (self.role, len(d), d.hex()))
                out.append(('udp', d, t))
        return out

    def _frames(self, t=None):
        out = []
        while len(self.rbuf) >= 4:
            if self.rbuf[:2] != b'NL':
                # No way to resynchronise a stream; treat as broken (after
                # the good frames that came before the garbage).
                if out:
                    break
                raise Closed('bad NL framing header %r' % self.rbuf[:4])
            (n,) = struct.unpack_from('>H', self.rbuf, 2)
            if len(self.rbuf) < 4 + n:
                break
            c, self.rbuf = self.rbuf[4:4 + n], self.rbuf[4 + n:]
            dbg('%s received TCP frame (%d bytes): %s' % (self.role, n, c.hex()))
            out.append(('tcp', c, t if t is not None else now()))
        return out

    def handle_gne(self, link, d, t_recv):
        """Parse one GNE-level packet and react.  Errors drop the rest."""
        i = 0
        try:
            while i < len(d):
                pid = d[i]
                i += 1
                if self.exit_seen and pid != P_END:
                    # "A GNE implementation has the option of ignoring any
                    # packets that arrive after an ExitPacket"
                    dbg('%s ignoring data after ExitPacket' % self.role)
                    return
                if pid == P_END:
                    if i != len(d):
                        dbg('%s ignoring %d bytes after end marker' % (self.role, len(d) - i))
                    return
                if pid == P_PACKET:
                    dbg('%s got Packet (id 0)' % self.role)
                elif pid == P_CUSTOM:
                    if i >= len(d) or i + 1 + d[i] > len(d):
                        raise ValueError('truncated CustomPacket')
                    n = d[i]
                    dbg('%s got CustomPacket %r' % (self.role, d[i + 1:i + 1 + n]))
                    i += 1 + n
                elif pid == P_EXIT:
                    # READING: the text has ExitPacket sent "over the reliable
                    # connection"; one arriving over UDP (late, duplicated or
                    # forged) is logged and ignored.
                    dbg('%s got ExitPacket over %s' % (self.role, link))
                    if link == 'tcp':
                        self.exit_seen = True
                elif pid == P_RATE:
                    if i + 4 > len(d):
                        raise ValueError('truncated RateAdjustPacket')
                    (self.peer_rate,) = struct.unpack_from('<I', d, i)
                    i += 4
                    dbg('%s got RateAdjustPacket rate=%d' % (self.role, self.peer_rate))
                elif pid == P_PING:
                    if i + 20 > len(d):
                        raise ValueError('truncated PingPacket')
                    req, s2, u2, s3, u3 = struct.unpack_from('<Iiiii', d, i)
                    i += 20
                    self.on_ping(link, req, (s2, u2, s3, u3), t_recv)
                else:
                    # READING: IDs 5-15 are reserved and higher IDs are user
                    # packets whose length we cannot know, so parsing cannot
                    # continue; "the implementation defines what happens" -
                    # we throw out the rest of this GNE-level packet.
                    raise ValueError('unknown packet id %d' % pid)
            # READING: a GNE-level packet without the 255 end marker is
            # accepted (everything in it parsed), with a debug note.
            dbg('%s GNE-level packet had no 255 end marker' % self.role)
        except (ValueError, struct.error) as e:
            log('%s parse error at offset %d, rest of packet dropped: %s' % (self.role, i, e))

    def on_ping(self, link, req, times, t_recv):
        # READING: the text gives no request/reply flag; a request is
        # recognised by "T2 and T3 are to have time values of 0s, 0ms",
        # anything else is a reply.
        if times == (0, 0, 0, 0):
            dbg('%s got PingPacket request id=%d' % (self.role, req))
            if self.cfg.mode == 'no-ping-reply':
                return
            t3 = now()
            t2 = t_recv
            if self.cfg.mode == 'ping-t2-gt-t3':
                t2 = t3 + 0.5
            body = struct.pack('<BI', P_PING, req) + gtime(t2) + \
                gtime(t3, self.cfg.mode == 'ping-bad-usec')
            # READING: the reply goes back over the link the request came on.
            self.send_gne([body], 'PingPacket reply id=%d' % req, link == 'udp')
        else:
            s2, u2, s3, u3 = times
            ok = 0 <= u2 <= 999999 and 0 <= u3 <= 999999 and (s2, u2) <= (s3, u3)
            dbg('%s got PingPacket reply id=%d T2=%d.%06d T3=%d.%06d%s' % (
                self.role, req, s2, u2, s3, u3, '' if ok else ' (INVALID times)'))
            self.pending_pings.discard(req)

    def close(self, linger=1.0):
        # Half-close and drain briefly so the last data is not lost to a RST.
        try:
            self.sock.shutdown(socket.SHUT_WR)
            end = time.monotonic() + linger
            while time.monotonic() < end:
                r, _, _ = select.select([self.sock], [], [], end - time.monotonic())
                if not r or not self.sock.recv(65536):
                    break
        except OSError:
            pass
        for s in (self.sock, self.usock):
            if s is not None:
                try:
                    s.close()
                except OSError:
                    pass


def family(host):
    return socket.AF_INET6 if ':' in host else socket.AF_INET


# ---------------------------------------------------------------- server
def serve(sock, addr, cfg):
    conn = Conn(sock, cfg, 'server')
    conn.peer_ip = addr[0]
    try:
        got = conn.wait(10.0)
        if not got:
            log('server: no CRP from %s within 10 s, closing' % (addr,))
            return conn.close(0)
        # Anything the client pipelined after the CRP stays queued.
        link, crp, _ = got[0]
        pending = got[1:]
        dbg('server received CRP candidate (%d bytes)' % len(crp))
        if not crp.startswith(HEADER):
            # READING: not a GNE client ("so that the client can more easily
            # tell ... came from GNE"); close without answering.
            log('server: first packet is not a GNE CRP, closing')
            return conn.close(0)
        refusal = HEADER + b'\0' + versions(cfg)
        if len(crp) != 48:
            # READING: a CRP of the wrong size cannot be read reliably; we
            # refuse it (the refusal tells the client our versions).
            log('server: CRP is %d bytes, not 48: refusing' % len(crp))
            conn.send_raw(refusal, 'refusal', False)
            return conn.close()
        ver, game, uv = parse_versions(crp[3:43])
        (conn.peer_rate,) = struct.unpack_from('<I', crp, 43)
        want_udp = crp[47] != 0
        mine = (cfg.gne_ver, cfg.game.encode('ascii', 'replace')[:31], cfg.user_ver)
        mismatch = (ver, game, uv) != mine
        dbg('server CRP: gne=%d.%d.%d game=%r user=%d rate=%d udp=%s mismatch=%s' % (
            ver + (game, uv, conn.peer_rate, want_udp, mismatch)))
        if cfg.mode == 'refuse' or (mismatch and cfg.mode != 'accept-mismatch'):
            conn.send_raw(refusal, 'refusal', False)
            return conn.close()
        port = 0
        grant = want_udp and cfg.mode == 'udp'
        if grant:
            conn.usock = socket.socket(family(addr[0]), socket.SOCK_DGRAM)
            conn.usock.bind((sock.getsockname()[0], 0))
            port = conn.usock.getsockname()[1]
        # READING: over TCP/UDP the CAP is always the 12-byte form ("exactly
        # 12 when using the TCP/UDP"); a declined or unrequested unreliable
        # link is signalled with port 0 (not a usable port).
        cap = HEADER + b'\x01' + struct.pack('<Ii', cfg.rate, port)
        if cfg.mode == 'short-handshake':
            cap = cap[:11]
        conn.send_raw(cap, 'CAP', False)
        if grant:
            # "The server will consider the connection complete once it
            # receives the packet sent over the reliable connection."
            end = time.monotonic() + 10.0
            while end and time.monotonic() < end:
                got = pending or conn.wait(end - time.monotonic())
                while got:
                    link, d, t = got.pop(0)
                    if link == 'udp':
                        conn.handle_gne(link, d, t)
                        continue
                    end = 0
                    if len(d) == 4 or (d.startswith(HEADER) and len(d) >= 8):
                        (p,) = struct.unpack('<i', d[-4:])
                        if 0 < p <= 65535:
                            conn.uaddr = (addr[0], p)
                            dbg('server: client UDP port %d' % p)
                        else:
                            log('server: bad client UDP port %d; UDP unused' % p)
                    else:
                        # READING: client sent data instead of the port
                        # packet; carry on over TCP only.
                        log('server: expected UDP port packet, got %d bytes' % len(d))
                        got.insert(0, (link, d, t))
                    break
                pending = got
        if cfg.mode == 'rate-limit':
            conn.send_gne([struct.pack('<BI', P_RATE, 2000)], 'RateAdjustPacket')
        conn.ping_request()
        if conn.uaddr:
            conn.ping_request(udp=True)
        idle_end = time.monotonic() + 30.0
        while not conn.exit_seen:
            got = pending or conn.wait(idle_end - time.monotonic())
            pending = []
            if not got:
                if time.monotonic() >= idle_end:
                    log('server: client idle for 30 s, ending session')
                    conn.send_exit()
                    break
                continue
            idle_end = time.monotonic() + 30.0
            for link, d, t in got:
                conn.handle_gne(link, d, t)
        conn.close()
    except Closed as e:
        dbg('server: %s' % e)
        conn.close(0)
    except Exception as e:  # never let a client kill the server
        log('server: error with client %s: %r' % (addr, e))
        conn.close(0)


def run_server(host, port, cfg):
    ls = socket.socket(family(host), socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(32)
    dbg('server listening on %s:%d mode=%s' % (host, port, cfg.mode))
    while True:
        try:
            s, addr = ls.accept()
        except OSError as e:
            log('server: accept failed: %s' % e)
            time.sleep(0.1)
            continue
        threading.Thread(target=serve, args=(s, addr, cfg), daemon=True).start()


# ---------------------------------------------------------------- client
def run_client(host, port, cfg, silence):
    try:
        sock = socket.create_connection((host, port), timeout=5)
    except OSError as e:
        log('client: connect failed: %s' % e)
        return 0
    sock.settimeout(None)
    conn = Conn(sock, cfg, 'client')
    conn.peer_ip = sock.getpeername()[0]
    want_udp = cfg.mode == 'udp'
    try:
        crp = HEADER + versions(cfg) + struct.pack('<IB', cfg.rate, 1 if want_udp else 0)
        if cfg.mode == 'short-handshake':
            crp = crp[:47]
        conn.send_raw(crp, 'CRP', False)
        got = conn.wait(silence)
        if not got:
            log('client: no answer to CRP')
            conn.close(0)
            return 0
        _, ans, _ = got[0]
        pending = got[1:]
        if not ans.startswith(HEADER) or len(ans) < 4:
            log('client: answer is not from GNE: %s' % ans[:16].hex())
            conn.close(0)
            return 0
        if ans[3] == 0:
            if len(ans) >= 44:
                v, g, u = parse_versions(ans[4:44])
                log('client: refused by server (gne %d.%d.%d, game %r, user %d)' % (v + (g, u)))
            else:
                log('client: refused by server (%d-byte refusal)' % len(ans))
            conn.close(0)
            return 0
        if len(ans) >= 8:
            (conn.peer_rate,) = struct.unpack_from('<I', ans, 4)
        sport = struct.unpack_from('<i', ans, 8)[0] if len(ans) >= 12 else 0
        dbg('client: accepted (CAP %d bytes, rate %d, udp port %d)' % (len(ans), conn.peer_rate, sport))
        if want_udp and 0 < sport <= 65535:
            conn.usock = socket.socket(family(conn.peer_ip), socket.SOCK_DGRAM)
            conn.usock.bind((sock.getsockname()[0], 0))
            conn.uaddr = (conn.peer_ip, sport)
            conn.usock.connect(conn.uaddr)   # so ICMP unreachable is reported
            # READING: "only the data needed for the server to be able to
            # respond" - the reliable packet is just the gint32 port.
            conn.send_raw(struct.pack('<i', conn.usock.getsockname()[1]), 'UDP port packet')
            # optional firewall opener: "a single guint8 with a value of 255"
            conn.send_gne([], 'firewall packet', udp=True)
        # a little ordinary traffic
        if cfg.mode == 'rate-limit':
            conn.send_gne([struct.pack('<BI', P_RATE, 2000)], 'RateAdjustPacket')
        msg = b'hello from textpeer'
        conn.send_gne([bytes([P_PACKET]), struct.pack('<BB', P_CUSTOM, len(msg)) + msg],
                      'Packet + CustomPacket')
        conn.ping_request()
        if conn.uaddr:
            conn.ping_request(udp=True)
        linger_end = None
        # READING: a client that "sends a little ordinary traffic and then
        # ends the session" should not wait for ever for a ping reply while
        # the peer keeps sending other things: at most 3 s, then it exits.
        deadline = time.monotonic() + 3.0
        while not conn.exit_seen and time.monotonic() < deadline:
            if not conn.pending_pings and linger_end is None:
                # give the server a moment to send its own traffic (pings)
                linger_end = time.monotonic() + min(0.2, silence)
            timeout = silence if linger_end is None else linger_end - time.monotonic()
            timeout = min(timeout, deadline - time.monotonic())
            got = pending or conn.wait(max(0.0, timeout))
            pending = []
            if not got:
                if linger_end is None:
                    dbg('client: %.0f ms of silence' % (silence * 1000))
                break
            for link, d, t in got:
                conn.handle_gne(link, d, t)
        if cfg.mode != 'no-exit':
            try:
                conn.send_exit()
            except OSError:
                pass
        conn.close(0.3)
    except Closed as e:
        dbg('client: %s' % e)
        if str(e).startswith('ICMP') and cfg.mode != 'no-exit':
            try:
                conn.send_exit()   # the reliable link still works
            except OSError:
                pass
        conn.close(0)
    except OSError as e:
        log('client: socket error: %s' % e)
        conn.close(0)
    return 0


def main(argv):
    cfg = Cfg()
    listen = False
    pos = []
    it = iter(argv)
    try:
        for a in it:
            key, eq, val = a.partition('=')
            if a == '--listen':
                listen = True
            elif key in ('--game', '--version', '--gne-version', '--rate'):
                v = val if eq else next(it)
                if key == '--game':
                    cfg.game = v
                elif key == '--version':
                    cfg.user_ver = int(v, 0) & 0xFFFFFFFF
                elif key == '--rate':
                    cfg.rate = int(v, 0) & 0xFFFFFFFF
                else:
                    a_, b_, c_ = (int(x) for x in v.split('.'))
                    cfg.gne_ver = (a_ & 0xFF, b_ & 0xFF, c_ & 0xFFFF)
            elif a.startswith('--'):
                raise ValueError(a)
            else:
                pos.append(a)
        if listen:
            if len(pos) != 3:
                raise ValueError('args')
            host, port, mode = pos[0], int(pos[1]), pos[2]
            silence = 1.0
        else:
            if len(pos) not in (3, 4):
                raise ValueError('args')
            host, port, mode = pos[0], int(pos[1]), pos[2]
            silence = (int(pos[3]) if len(pos) == 4 else 1000) / 1000.0
    except (ValueError, StopIteration):
        print(USAGE, file=sys.stderr)
        return 2
    if mode not in MODES:
        print(USAGE, file=sys.stderr)
        return 2
    cfg.mode = mode
    if mode == 'rate-limit' and not cfg.rate:
        cfg.rate = 4000
    if listen:
        run_server(host, port, cfg)
        return 0
    # The client must never run longer than 30 s.
    signal.signal(signal.SIGALRM, lambda *_: os._exit(0))
    signal.alarm(29)
    return run_client(host, port, cfg, max(0.05, silence))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
