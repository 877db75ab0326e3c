#!/bin/bash
# hosts: --allow-host (network mode allow_hosts). The sandbox keeps its own network namespace with
# only loopback; a forwarder inside hands each connection to 127.0.0.1:3128 to corral's proxy,
# which reaches only the hosts listed, never an address off the public internet through a name
# (unless that address is listed too), and answers everything else with 403 and a reason. A
# python3 HTTP server on the host's 127.0.0.1 is the only destination (and for the internal
# ranges, one in a network namespace of the test's own): nothing leaves the machine. The requests
# are made with python3's urllib (which honours http_proxy) and with raw sockets.
# check_sb takes its condition as a string for eval, in single quotes (so shellcheck sees neither
# the expansions nor the variables used only there):
# shellcheck disable=SC2016,SC2034
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

SB_OUT=$CR_TMP/sb.out
SB_ERR=$CR_TMP/sb.err
SB_WRAP=()
HOST_PIDS=()
ECONNREFUSED=111
ENETUNREACH=101
PY=/usr/bin/python3

hosts_cleanup() {
	local p
	for p in "${HOST_PIDS[@]}"; do
		kill -KILL "$p"
		wait "$p"
	done
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }hosts_cleanup 2>/dev/null"

if [ ! -x "$PY" ]; then
	skip "hosts suite" "$PY is not installed"
	exit 0
fi

# sb MODE WS [OPTS] -- CMD...: corral run --grant once as MODE (at most 30 s: exit 124) under
# "${SB_WRAP[@]}" if set; SB_RC, $SB_OUT, $SB_ERR; SB_MS is how long it took.
sb() {
	local mode=$1 ws=$2 pre=() t0
	shift 2
	if [ "$mode" = user ] && [ "$(id -u)" -eq 0 ]; then
		pre=("${AS_USER[@]}")
	fi
	t0=$(date +%s%N)
	# --grant once, as lib.sh's sandbox(): the profile gate is not what this suite tests.
	(cd "$ws" && exec timeout -k 5 30 "${pre[@]}" "${SB_WRAP[@]}" \
		"$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once "$@") >"$SB_OUT" 2>"$SB_ERR"
	SB_RC=$?
	SB_MS=$((($(date +%s%N) - t0) / 1000000))
}

show_failure() {
	diag "corral exit $SB_RC after $SB_MS ms; stdout:" "$(cat "$SB_OUT")" "stderr:" "$(cat "$SB_ERR")"
}

check_sb() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; show_failure; fi
}

# value KEY: the value of "KEY=..." in the sandbox's output (the last one).
value() { sed -n "s/^$1=//p" "$SB_OUT" | tail -n 1; }
json_ok() { jq -e "$2" "$1" >/dev/null 2>&1; }

# The host's HTTP server: 127.0.0.1 only, serving one file with a token.
SRV_DIR=$CR_TMP/srv
mkdir -p "$SRV_DIR"
TOKEN=corral-hosts-$$-$RANDOM
echo "$TOKEN" >"$SRV_DIR/token.txt"
head -c 3000000 /dev/urandom >"$SRV_DIR/big.bin"
BIG_SUM=$(sha256sum <"$SRV_DIR/big.bin" | cut -d' ' -f1)
chmod -R a+rX "$SRV_DIR"
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$PY" -m http.server "$PORT" --bind 127.0.0.1 --directory "$SRV_DIR" >/dev/null 2>&1 &
HOST_PIDS+=($!)
if wait_for "$PEER" connect-tcp 127.0.0.1 "$PORT" 2>/dev/null; then
	ok "positive control: the host's HTTP server listens on 127.0.0.1:$PORT"
else
	not_ok "positive control: the host's HTTP server listens on 127.0.0.1:$PORT"
	exit 1
fi
# The host's echo server, 127.0.0.1 only: a POST is answered with the sha256 of its body (read as
# Content-Length says); anything else is echoed back as it comes (a tunnel's bytes).
cat >"$CR_TMP/echo-srv.py" <<-'EOF'
	import hashlib, socketserver, sys
	class H(socketserver.BaseRequestHandler):
	    def handle(self):
	        data = self.request.recv(65536)
	        if data.startswith(b"POST "):
	            while b"\r\n\r\n" not in data:
	                data += self.request.recv(65536)
	            head, _, body = data.partition(b"\r\n\r\n")
	            n = int([l.split(b":", 1)[1] for l in head.split(b"\r\n")
	                     if l.lower().startswith(b"content-length:")][0])
	            while len(body) < n:
	                body += self.request.recv(65536)
	            out = hashlib.sha256(body).hexdigest().encode()
	            self.request.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(out), out))
	            return
	        while data:
	            self.request.sendall(data)
	            data = self.request.recv(65536)
	socketserver.ThreadingTCPServer.allow_reuse_address = True
	socketserver.ThreadingTCPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
ECHO_PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$PY" "$CR_TMP/echo-srv.py" "$ECHO_PORT" >/dev/null 2>&1 &
HOST_PIDS+=($!)
if ! wait_for "$PEER" connect-tcp 127.0.0.1 "$ECHO_PORT" 2>/dev/null; then
	not_ok "positive control: the host's echo server listens on 127.0.0.1:$ECHO_PORT"
	exit 1
fi
# A non-loopback IPv4 address of the host, if it has one.
HOST_IP=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')

# fetch.py URL...: one line per URL: "<n>=OK <body>", "<n>=HTTP <code> <body>" or "<n>=ERR <why>",
# n counting from 1. no_proxy is dropped so that even 127.0.0.1 goes through the proxy.
# connect.py TARGET: a CONNECT over a raw socket; prints "connect=<status line>" and the body.
write_scripts() { # WS MODE
	cat >"$1/fetch.py" <<-'EOF'
		import os, sys, urllib.error, urllib.request
		for k in ("no_proxy", "NO_PROXY"):
		    os.environ.pop(k, None)
		for i, u in enumerate(sys.argv[1:], 1):
		    try:
		        body = urllib.request.urlopen(u, timeout=20).read().decode().strip()
		        print(f"{i}=OK {body}")
		    except urllib.error.HTTPError as e:
		        print(f"{i}=HTTP {e.code} {e.read().decode().strip()}")
		    except Exception as e:
		        print(f"{i}=ERR {e}")
	EOF
	cat >"$1/connect.py" <<-'EOF'
		import socket, sys
		s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
		s.sendall(f"CONNECT {sys.argv[1]} HTTP/1.1\r\nHost: {sys.argv[1]}\r\n\r\n".encode())
		data = b""
		while b"\r\n\r\n" not in data:
		    chunk = s.recv(4096)
		    if not chunk:
		        break
		    data += chunk
		head, _, body = data.partition(b"\r\n\r\n")
		print("connect=" + head.decode().split("\r\n")[0])
		if head.startswith(b"HTTP/1.1 200"):
		    s.sendall(b"GET /token.txt HTTP/1.0\r\n\r\n")
		    while True:
		        chunk = s.recv(4096)
		        if not chunk:
		            break
		        body += chunk
		    print("tunnel=" + body.decode().strip().split("\n")[-1])
		else:
		    print("body=" + body.decode().strip())
	EOF
	cat >"$1/raw.py" <<-'EOF'
		import socket, sys
		s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
		s.sendall(sys.argv[1].encode().decode("unicode_escape").encode("latin-1"))
		print("raw=" + s.recv(4096).decode().split("\r\n")[0])
	EOF
	# big.py PORT: big.bin through an absolute-form GET and through a CONNECT tunnel (sha256 of
	# each), and a 17 KiB request head.
	cat >"$1/big.py" <<-'EOF'
		import hashlib, os, socket, sys, urllib.request
		for k in ("no_proxy", "NO_PROXY"):
		    os.environ.pop(k, None)
		port = sys.argv[1]
		body = urllib.request.urlopen(f"http://127.0.0.1:{port}/big.bin", timeout=20).read()
		print("get=" + hashlib.sha256(body).hexdigest())
		s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
		s.sendall(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\nGET /big.bin HTTP/1.0\r\n\r\n".encode())
		data = b""
		while True:
		    chunk = s.recv(65536)
		    if not chunk:
		        break
		    data += chunk
		body = data.split(b"\r\n\r\n", 2)[2]
		print("tunnel=" + hashlib.sha256(body).hexdigest())
		s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
		try:
		    s.sendall(b"GET http://127.0.0.1/ HTTP/1.1\r\nX: " + b"a" * 17000 + b"\r\n\r\n")
		except OSError:
		    pass
		print("long=" + s.recv(4096).decode().split("\r\n")[0])
	EOF
	# early.py PORT: what a client sends together with its request head, in one send: a POST's
	# body (binary, with bare LF and control bytes), and a TLS ClientHello's first bytes right after
	# a CONNECT head (as clients that send early data do). Prints the sha256 the echo server got
	# and whether the tunnel echoed the bytes back.
	cat >"$1/early.py" <<-'EOF'
		import hashlib, socket, sys
		port = int(sys.argv[1])
		def exchange(data, want):
		    s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
		    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
		    s.sendall(data)
		    got = b""
		    while len(got) < want:
		        chunk = s.recv(65536)
		        if not chunk:
		            break
		        got += chunk
		    s.close()
		    return got
		body = b"a=1\nb=\x01\x00\xff\r\n" * 64
		got = exchange(b"POST http://127.0.0.1:%d/upload HTTP/1.1\r\nContent-Type: application/octet-stream\r\n"
		               b"Content-Length: %d\r\n\r\n%s" % (port, len(body), body), 1 << 20)
		head, _, rest = got.partition(b"\r\n\r\n")
		print("post=" + head.split(b"\r\n")[0].decode())
		print("post_ok=" + str(rest.decode(errors="replace") == hashlib.sha256(body).hexdigest()))
		hello = bytes.fromhex("160301020001000200fc0303") + bytes(range(256))
		established = b"HTTP/1.1 200 Connection Established\r\n\r\n"
		got = exchange(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n%s" % (port, port, hello),
		               len(established) + len(hello))
		print("connect=" + got.split(b"\r\n")[0].decode(errors="replace"))
		print("early_ok=" + str(got == established + hello))
	EOF
	# busy.py: 256 idle connections to the proxy, then one more, which should get 503.
	cat >"$1/busy.py" <<-'EOF'
		import socket, time
		idle = [socket.create_connection(("127.0.0.1", 3128)) for _ in range(256)]
		time.sleep(1)
		s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
		s.sendall(b"GET http://127.0.0.1/ HTTP/1.1\r\n\r\n")
		print("extra=" + s.recv(4096).decode().split("\r\n")[0])
	EOF
	# hold.py: a tunnel to the host's server and an idle connection to the proxy, held open in the
	# background after the command exits.
	cat >"$1/hold.py" <<-'EOF'
		import socket, sys, time
		a = socket.create_connection(("127.0.0.1", 3128))
		a.sendall(f"CONNECT 127.0.0.1:{sys.argv[1]} HTTP/1.1\r\n\r\n".encode())
		a.recv(4096)
		b = socket.create_connection(("127.0.0.1", 3128))
		b.sendall(b"GET http://127.0.0.1/")
		open(sys.argv[2], "w").write("held\n")
		time.sleep(60)
	EOF
	give "$2" "$1"/*.py
}

test_allowed() {
	local m=$1 ws=$2
	sb "$m" "$ws" --allow-host 127.0.0.1 --json-status "$ws/allowed.json" -- sh -c "
		$PY $ws/fetch.py http://127.0.0.1:$PORT/token.txt
		$PEER connect-tcp 127.0.0.1 $PORT; echo direct_lo=\$?
		${HOST_IP:+$PEER connect-tcp $HOST_IP $PORT; echo direct_ip=\$?}
		env | grep -i '_proxy='"
	check_sb "$m: positive control: --allow-host 127.0.0.1 fetches the host's http://127.0.0.1:$PORT/token.txt through the proxy" \
		eval '[ "$SB_RC" -eq 0 ] && [ "$(value 1)" = "OK $TOKEN" ]'
	check_sb "$m: a direct connection to 127.0.0.1:$PORT reaches the sandbox's own loopback, not the host's (ECONNREFUSED; got $(value direct_lo))" \
		eval '[ "$(value direct_lo)" = $ECONNREFUSED ]'
	if [ -n "$HOST_IP" ]; then
		check_sb "$m: escape 2: a direct TCP connection to the host's address $HOST_IP fails with ENETUNREACH (got $(value direct_ip)) while the proxy works" \
			eval '[ "$(value direct_ip)" = $ENETUNREACH ] && [ "$(value 1)" = "OK $TOKEN" ]'
	else
		skip "$m: escape 2: a direct TCP connection to the host's address fails with ENETUNREACH" "the host has no global IPv4 address"
	fi
	check_sb "$m: the command gets http_proxy, https_proxy, all_proxy (both cases) = http://127.0.0.1:3128 and no_proxy = localhost,127.0.0.1,::1" \
		eval 'for k in http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY; do
			[ "$(value $k)" = http://127.0.0.1:3128 ] || exit 1; done
			[ "$(value no_proxy)" = localhost,127.0.0.1,::1 ] && [ "$(value NO_PROXY)" = localhost,127.0.0.1,::1 ]'
	if command -v jq >/dev/null; then
		check "$m: the JSON status says network allow_hosts, the list, loopback, a net namespace, and the proxy's address" \
			json_ok "$ws/allowed.json" '.enforced.network == "allow_hosts" and .enforced.allow_hosts == ["127.0.0.1"] and
				.enforced.loopback == true and (.enforced.namespaces | index("net")) != null and
				.enforced.proxy.address == "127.0.0.1:3128"'
	else
		skip "$m: the JSON status says network allow_hosts and the proxy" "jq is not installed"
	fi
	# Landlock's connect rules (ABI 4+) would otherwise keep the command from the proxy.
	sb "$m" "$ws" --allow-host 127.0.0.1 --tcp-connect 443 --json-status "$ws/tcp.json" -- \
		$PY "$ws/fetch.py" "http://127.0.0.1:$PORT/token.txt"
	check_sb "$m: with --tcp-connect 443 the proxy's port 3128 is allowed too: the fetch works" \
		eval '[ "$SB_RC" -eq 0 ] && [ "$(value 1)" = "OK $TOKEN" ]'
	sb "$m" "$ws" --allow-host 127.0.0.1 --setenv http_proxy=http://example.invalid:1 -- sh -c 'env | grep -i "^http_proxy="'
	check_sb "$m: --setenv http_proxy wins, and HTTP_PROXY is then not added either" \
		eval '[ "$(value http_proxy)" = http://example.invalid:1 ] && ! grep -q "^HTTP_PROXY=" "$SB_OUT"'
}

# HOST:PORT lets that port of HOST through, and no other.
test_ports() {
	local m=$1 ws=$2 other=$((PORT == 65535 ? PORT - 1 : PORT + 1))
	sb "$m" "$ws" --allow-host "127.0.0.1:$PORT" --json-status "$ws/ports.json" -- sh -c "
		$PY $ws/fetch.py http://127.0.0.1:$PORT/token.txt http://127.0.0.1:$other/token.txt
		$PY $ws/connect.py 127.0.0.1:$other"
	check_sb "$m: positive control: --allow-host 127.0.0.1:$PORT fetches the token on that port" \
		eval '[ "$SB_RC" -eq 0 ] && [ "$(value 1)" = "OK $TOKEN" ]'
	check_sb "$m: escape: port $other of the same host gets 403 and the port's reason (got $(value 2))" \
		eval '[[ "$(value 2)" == "HTTP 403 corral: port $other of host '"'"'127.0.0.1'"'"' is not in this sandbox'"'"'s allow_hosts (127.0.0.1:$PORT)"* ]]'
	check_sb "$m: escape: CONNECT 127.0.0.1:$other over a raw socket gets 403" \
		eval 'grep -qx "connect=HTTP/1.1 403 Forbidden" "$SB_OUT" && grep -q "^body=corral: port $other of host" "$SB_OUT"'
	if command -v jq >/dev/null; then
		check "$m: the JSON status lists 127.0.0.1:$PORT and counts 1 allowed and 2 denied" \
			json_ok "$ws/ports.json" ".enforced.allow_hosts == [\"127.0.0.1:$PORT\"] and
				.enforced.proxy.allowed == 1 and .enforced.proxy.denied == 2"
	else
		skip "$m: the JSON status lists the HOST:PORT entry" "jq is not installed"
	fi
	sb "$m" "$ws" --allow-host "127.0.0.1:0$PORT" -- true
	check_sb "$m: a port with a leading zero is refused before anything runs (exit 125, a reason)" \
		eval '[ "$SB_RC" -eq 125 ] && grep -q "optionally with :PORT" "$SB_ERR"'
}

test_denied() {
	local m=$1 ws=$2
	sb "$m" "$ws" -v --allow-host 127.0.0.1 --allow-host '*.example.invalid' \
		--json-status "$ws/denied.json" -- \
		$PY "$ws/fetch.py" "http://localhost:$PORT/token.txt" http://example.invalid/ \
		http://a.example.invalid/ "http://127.0.0.1:$PORT/token.txt"
	check_sb "$m: escape 1: http://localhost:$PORT (not in allow_hosts) gets 403 and corral's reason" \
		eval '[[ "$(value 1)" == "HTTP 403 corral: host '"'"'localhost'"'"' is not in this sandbox'"'"'s allow_hosts"* ]]'
	check_sb "$m: escape 3: *.example.invalid does not allow example.invalid itself (403)" \
		eval '[[ "$(value 2)" == "HTTP 403 corral: host '"'"'example.invalid'"'"' is not in"* ]]'
	check_sb "$m: ... but does allow a.example.invalid (which then cannot be resolved: 502, not 403)" \
		eval '[[ "$(value 3)" == "HTTP 502 corral: cannot resolve '"'"'a.example.invalid'"'"'"* ]]'
	check_sb "$m: with -v each decision is logged: the fetch allowed by entry 127.0.0.1, the one that failed" \
		eval 'grep -q "^corral: debug: proxy: GET 127.0.0.1:$PORT allowed (allow_hosts entry '"'"'127.0.0.1'"'"')" "$SB_ERR" &&
			grep -q "^corral: debug: proxy: 502 Bad Gateway: cannot resolve" "$SB_ERR"'
	check_sb "$m: each denied host is named once in a warning on corral's stderr" \
		eval '[ "$(grep -c "^corral: warning: proxy: denied: host '"'"'localhost'"'"'" "$SB_ERR")" = 1 ] &&
			[ "$(grep -c "^corral: warning: proxy: denied: host '"'"'example.invalid'"'"'" "$SB_ERR")" = 1 ]'
	if command -v jq >/dev/null; then
		check "$m: the JSON status counts 1 allowed, 2 denied and 1 failed connection" \
			json_ok "$ws/denied.json" '.enforced.proxy.allowed == 1 and .enforced.proxy.denied == 2 and
				.enforced.proxy.failed == 1 and .enforced.allow_hosts == ["127.0.0.1", "*.example.invalid"]'
	else
		skip "$m: the JSON status counts the connections" "jq is not installed"
	fi

	# A name that resolves to loopback is refused even when listed: DNS rebinding.
	sb "$m" "$ws" --allow-host localhost -- $PY "$ws/fetch.py" "http://localhost:$PORT/token.txt"
	check_sb "$m: escape 4: an allowed name that resolves to 127.0.0.1 (localhost) gets 403 with the rebinding reason" \
		eval '[[ "$(value 1)" == "HTTP 403 corral: host '"'"'localhost'"'"' resolves to "*"loopback"*"DNS rebinding"* ]]'

	sb "$m" "$ws" --allow-host 127.0.0.1 -- sh -c "
		$PY $ws/connect.py example.invalid:443
		$PY $ws/connect.py 127.0.0.1:$PORT
		$PY $ws/raw.py 'GARBAGE\r\n\r\n'
		$PY $ws/raw.py 'GET /token.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
		$PY $ws/raw.py 'GET http://127.0.0.1:$PORT/token.txt HTTP/1.1\nHost: x\n\n'"
	check_sb "$m: escape 5: CONNECT example.invalid:443 over a raw socket gets 403 and the reason" \
		eval 'grep -qx "connect=HTTP/1.1 403 Forbidden" "$SB_OUT" &&
			grep -q "^body=corral: host '"'"'example.invalid'"'"' is not in this sandbox'"'"'s allow_hosts" "$SB_OUT"'
	check_sb "$m: CONNECT 127.0.0.1:$PORT (allowed) is a tunnel to the host's server" \
		eval 'grep -qx "connect=HTTP/1.1 200 Connection Established" "$SB_OUT" && grep -qx "tunnel=$TOKEN" "$SB_OUT"'
	check_sb "$m: garbage, an origin-form request and bare-LF lines get 400" \
		eval '[ "$(grep -cx "raw=HTTP/1.1 400 Bad Request" "$SB_OUT")" = 3 ]'
}

test_relay() {
	local m=$1 ws=$2
	sb "$m" "$ws" --allow-host 127.0.0.1 -- $PY "$ws/big.py" "$PORT"
	check_sb "$m: 3 MB arrive intact through an absolute-form GET and through a CONNECT tunnel (with the request sent right after the CONNECT head)" \
		eval '[ "$(value get)" = "$BIG_SUM" ] && [ "$(value tunnel)" = "$BIG_SUM" ]'
	check_sb "$m: a request head over 16 KiB gets 431" \
		eval '[ "$(value long)" = "HTTP/1.1 431 Request Header Fields Too Large" ]'
}

# A request's body, or a tunnel's first bytes, that arrive in the same segment as the head are
# sent on, not refused as a malformed head.
test_early() {
	local m=$1 ws=$2
	sb "$m" "$ws" --allow-host "127.0.0.1:$ECHO_PORT" --allow-host "127.0.0.1:$PORT" -- sh -c "
		$PY $ws/early.py $ECHO_PORT
		$PY $ws/fetch.py http://127.0.0.1:$PORT/token.txt"
	check_sb "$m: positive control: the same sandbox fetches the token" \
		eval '[ "$(value 1)" = "OK $TOKEN" ]'
	check_sb "$m: a POST whose binary body comes in the same send as its head reaches the host intact (got $(value post), intact: $(value post_ok))" \
		eval '[ "$(value post)" = "HTTP/1.0 200 OK" ] && [ "$(value post_ok)" = True ]'
	check_sb "$m: a CONNECT followed at once by TLS ClientHello bytes is a tunnel that carries them (got $(value connect), echoed: $(value early_ok))" \
		eval '[ "$(value connect)" = "HTTP/1.1 200 Connection Established" ] && [ "$(value early_ok)" = True ]'
}

# The command exits while a tunnel and an idle connection are open: corral returns at once, and
# nothing is left (the forwarder dies with the pid namespace; the proxy's threads end).
test_lifetime() {
	local m=$1 ws=$2 left
	sb "$m" "$ws" --allow-host 127.0.0.1 -- sh -c "
		$PY $ws/hold.py $PORT $ws/held &
		i=0; while [ ! -s $ws/held ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
		cat $ws/held"
	check_sb "$m: corral returns within 5 s of the command's exit while connections through the proxy are open (took $SB_MS ms)" \
		eval '[ "$SB_RC" -eq 0 ] && grep -qx held "$SB_OUT" && [ "$SB_MS" -lt 5000 ]'
	sb "$m" "$ws" --allow-host 127.0.0.1 -- $PY "$ws/busy.py"
	check_sb "$m: with 256 connections open, one more gets 503; corral still returns at once (took $SB_MS ms)" \
		eval '[ "$(value extra)" = "HTTP/1.1 503 Service Unavailable" ] && [ "$SB_MS" -lt 5000 ]'
	sleep 0.2
	left=$(pgrep -x corral-proxy; pgrep -f "$ws/hold.py")
	check "$m: no forwarder (corral-proxy) and no sandboxed process is left after the run${left:+ (left: $(tr '\n' ' ' <<<"$left"))}" \
		test -z "$left"
	sb "$m" "$ws" --json-status "$ws/none.json" -- sh -c 'env | grep -ci _proxy=; ps -e -o comm= 2>/dev/null | grep -c corral-proxy'
	if command -v jq >/dev/null; then
		check_sb "$m: without --allow-host: no proxy, no forwarder, no proxy variables, nothing about it in the JSON status" \
			eval '[ "$(cat "$SB_OUT")" = "0
0" ] && json_ok "$ws/none.json" ".enforced.network == \"none\" and .enforced.proxy == null and .enforced.allow_hosts == null"'
	else
		skip "$m: without --allow-host: no proxy" "jq is not installed"
	fi
}

# Names that resolve to addresses that are not globally reachable (private, shared, link-local,
# IPv6 unique-local, documentation, 6to4 and IPv4-mapped forms of those) or that belong to the
# host's own interfaces are refused even when listed, unless the address itself is listed. corral
# runs in a network and mount namespace of the test's own: lo carries one address of each kind
# (11.0.0.7 and 11.0.0.8, globally reachable, stand for the host's own public address), a hosts
# file names them, and an HTTP server listens on all of them, so that each refusal is corral's
# (internal-net.sh checks first that every address answers). Root only: it takes a new network
# namespace, addresses and a bind mount over /etc/hosts; as the user, corral runs there through
# setpriv.
INTERNAL_V4="10.213.0.1 172.20.0.1 192.168.77.1 100.64.0.1 169.254.77.1"
write_internal_net() {
	cat >"$CR_TMP/internal-net.sh" <<-'EOF'
		# internal-net.sh HOSTS SRV PORT CMD...: in new network and mount namespaces (unshare -m -n)
		set -u
		hosts=$1 srv=$2 port=$3
		shift 3
		ip link set lo up || exit 97
		v4="10.213.0.1 10.213.0.2 172.20.0.1 192.168.77.1 100.64.0.1 169.254.77.1
			198.51.100.7 198.51.100.8 192.0.2.9 203.0.113.9 11.0.0.7 11.0.0.8"
		for a in $v4; do
			ip addr add "$a/32" dev lo || exit 97
		done
		v6="fd00:213::1 2002:c633:6407::1" any=::
		for a in $v6; do
			ip -6 addr add "$a/128" dev lo nodad 2>/dev/null || { v6= any=0.0.0.0; break; }
		done
		mount --bind "$hosts" /etc/hosts || exit 97
		python3 -m http.server "$port" --bind "$any" --directory "$srv" >/dev/null 2>&1 &
		srv_pid=$!
		for a in $v4 $v6; do
			python3 - "$a" "$port" <<-'PY' || { echo "internal-net: nothing answers on $a" >&2; kill "$srv_pid"; exit 98; }
				import socket, sys, time
				for _ in range(100):
				    try:
				        socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
				        sys.exit(0)
				    except OSError:
				        time.sleep(0.05)
				sys.exit(1)
			PY
		done
		echo "ipv6=${v6:-none}" | tr ' ' , >&2
		"$@"
		rc=$?
		kill "$srv_pid"
		wait "$srv_pid"
		exit $rc
	EOF
	cat >"$CR_TMP/internal-hosts" <<-EOF
		127.0.0.1 localhost
		10.213.0.1 corral-private.test
		172.20.0.1 corral-private172.test
		192.168.77.1 corral-private192.test
		100.64.0.1 corral-shared.test
		169.254.77.1 corral-linklocal.test
		10.213.0.2 corral-listed.test
		fd00:213::1 corral-ula.test
		198.51.100.7 doc2.corral-wild.test
		192.0.2.9 doc1.corral-wild.test
		203.0.113.9 doc3.corral-wild.test
		::ffff:198.51.100.7 mapped.corral-wild.test
		11.0.0.7 own.corral-wild.test
		2002:c633:6407::1 sixtofour.corral-wild.test
		11.0.0.8 ownlisted.corral-wild.test
		198.51.100.8 doclisted.corral-wild.test
	EOF
	chmod a+r "$CR_TMP/internal-hosts"
}

test_internal() {
	local m=$1 ws=$2 pre=() names=() urls=() i denied=10
	if [ "$(id -u)" -ne 0 ]; then
		skip "$m: names resolving to private, shared and link-local addresses are refused" \
			"the suite runs as a user: it needs root for a network namespace with such addresses and a hosts file"
		return
	fi
	[ "$m" = user ] && pre=("${AS_USER[@]}")
	for i in corral-private corral-private172 corral-private192 corral-shared corral-linklocal corral-ula; do
		names+=(--allow-host "$i.test")
		urls+=("http://$i.test:$PORT/token.txt")
	done
	# 9-14: a listed wildcard's names that lead where no name may; 15, 16: the positive controls,
	# names whose address (the host's own; a documentation one) is listed too.
	for i in doc2 doc1 doc3 mapped own sixtofour ownlisted doclisted; do
		urls+=("http://$i.corral-wild.test:$PORT/token.txt")
	done
	SB_WRAP=(unshare -m -n --propagation private sh "$CR_TMP/internal-net.sh" "$CR_TMP/internal-hosts" "$SRV_DIR" "$PORT" "${pre[@]}")
	sb root "$ws" "${names[@]}" --allow-host corral-listed.test --allow-host 10.213.0.2 \
		--allow-host '*.corral-wild.test' --allow-host 11.0.0.8 --allow-host "198.51.100.8:$PORT" \
		--json-status "$ws/internal.json" -- \
		$PY "$ws/fetch.py" "${urls[@]:0:6}" "http://corral-listed.test:$PORT/token.txt" \
		"http://10.213.0.2:$PORT/token.txt" "${urls[@]:6}"
	SB_WRAP=()
	check_sb "$m: positive control: a listed name whose private address is listed too (10.213.0.2) and that address itself fetch the token" \
		eval '[ "$SB_RC" -eq 0 ] && [ "$(value 7)" = "OK $TOKEN" ] && [ "$(value 8)" = "OK $TOKEN" ]'
	check_sb "$m: positive control: in the same sandbox, names of a listed wildcard whose address is listed too (the host's own 11.0.0.8; 198.51.100.8 on that port) fetch the token" \
		eval '[ "$(value 15)" = "OK $TOKEN" ] && [ "$(value 16)" = "OK $TOKEN" ]'
	i=1
	for a in $INTERNAL_V4; do
		check_sb "$m: escape: a listed name that resolves to $a (not listed) gets 403, the address and the --allow-host to add (got $(value $i))" \
			eval '[[ "$(value '$i')" == "HTTP 403 corral: host "*" resolves to $a, an address off the public internet"*"--allow-host $a" ]]'
		i=$((i + 1))
	done
	i=9
	for a in 198.51.100.7 192.0.2.9 203.0.113.9 ::ffff:198.51.100.7; do
		check_sb "$m: escape: a wildcard name that resolves to $a (documentation, RFC 5737: not globally reachable) gets 403 and the --allow-host to add (got $(value $i))" \
			eval '[[ "$(value '$i')" == "HTTP 403 corral: host "*" resolves to ${a#::ffff:}, an address off the public internet (documentation"*"RFC 5737)"*"--allow-host ${a#::ffff:}" ]]'
		i=$((i + 1))
	done
	check_sb "$m: escape: a wildcard name that resolves to 11.0.0.7, an address of the (test's) host's own interface, gets 403 (got $(value 13))" \
		eval '[[ "$(value 13)" == "HTTP 403 corral: host '"'"'own.corral-wild.test'"'"' resolves to 11.0.0.7, an address of corral'"'"'s host'"'"'s own network interfaces"*"--allow-host 11.0.0.7" ]]'
	if grep -q "^ipv6=fd00:213::1,2002:c633:6407::1" "$SB_ERR"; then
		denied=$((denied + 2))
		check_sb "$m: escape: a listed name that resolves to the IPv6 unique-local fd00:213::1 gets 403 (got $(value 6))" \
			eval '[[ "$(value 6)" == "HTTP 403 corral: host '"'"'corral-ula.test'"'"' resolves to fd00:213::1, an address off the public internet"* ]]'
		check_sb "$m: escape: a wildcard name that resolves to 6to4 2002:c633:6407::1 (198.51.100.7 inside) gets 403 (got $(value 14))" \
			eval '[[ "$(value 14)" == "HTTP 403 corral: host '"'"'sixtofour.corral-wild.test'"'"' resolves to 2002:c633:6407::1, an address off the public internet (documentation"* ]]'
	else
		skip "$m: escape: names that resolve to IPv6 unique-local and 6to4 addresses get 403" "no IPv6 in the test's network namespace"
	fi
	if command -v jq >/dev/null; then
		check "$m: the JSON status counts the 4 allowed and the $denied refused connections" \
			json_ok "$ws/internal.json" ".enforced.proxy.allowed == 4 and .enforced.proxy.denied == $denied"
	else
		skip "$m: the JSON status counts the allowed and refused connections" "jq is not installed"
	fi
}

# Degraded mode (no user namespaces, simulated) has no network namespace: allow_hosts is refused.
test_degraded() {
	local m=$1 ws=$2
	if ! "$PEER" deny-userns -- true 2>/dev/null; then
		skip "$m: degraded mode refuses --allow-host" "peer deny-userns has no seccomp filter for $(uname -m)"
		return
	fi
	SB_WRAP=("$PEER" deny-userns --)
	sb "$m" "$ws" --allow-degraded --allow-host 127.0.0.1 -- sh -c "echo ran >$ws/ran"
	SB_WRAP=()
	check_sb "$m: degraded mode refuses --allow-host: exit 125, nothing runs, and the message says allow_hosts needs a network namespace" \
		eval '[ "$SB_RC" -eq 125 ] && [ ! -e "$ws/ran" ] && grep -q "allow_hosts" "$SB_ERR" &&
			grep -q "network namespace" "$SB_ERR"'
}

write_internal_net
for m in $MODES; do
	ws=$(mkws "$m")
	write_scripts "$ws" "$m"
	test_allowed "$m" "$ws"
	test_denied "$m" "$ws"
	test_ports "$m" "$ws"
	test_relay "$m" "$ws"
	test_early "$m" "$ws"
	test_lifetime "$m" "$ws"
	test_internal "$m" "$ws"
	test_degraded "$m" "$ws"
done
true # lib.sh's EXIT trap passes on the status of the last command
