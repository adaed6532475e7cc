#!/usr/bin/env python3
"""Payload rate of one TCP stream over 127.0.0.1: sends BYTES (default 50 MB) in MESSAGE-byte
writes to a receiver thread and prints Gbit/s of payload. Run it inside the shaped namespace to
see what a tc rate limit delivers, e.g. (results/clock/validation.md):

    scripts/netem-cluster.sh --rate 1gbit -- python3 scripts/tcp-throughput.py 100000000

Usage: tcp-throughput.py [BYTES] [MESSAGE]"""
import socket
import sys
import threading
import time


def main(argv):
    try:
        total = int(argv[0]) if argv else 50_000_000
        message = int(argv[1]) if len(argv) > 1 else 1 << 20
    except ValueError:
        print(f"tcp-throughput: {' '.join(argv)}: want BYTES [MESSAGE] as integers", file=sys.stderr)
        return 2
    if total <= 0 or message <= 0:
        print("tcp-throughput: BYTES and MESSAGE must be > 0", file=sys.stderr)
        return 2
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def receive():
        conn, _ = server.accept()
        got = 0
        while got < total:
            chunk = conn.recv(1 << 20)
            if not chunk:
                break
            got += len(chunk)
        conn.sendall(b"k")  # the sender stops its clock when everything has arrived
        conn.close()

    receiver = threading.Thread(target=receive)
    receiver.start()
    sender = socket.create_connection(server.getsockname())
    buf = b"x" * message
    start, sent = time.perf_counter(), 0
    while sent < total:
        sender.sendall(buf)
        sent += len(buf)
    sender.recv(1)
    seconds = time.perf_counter() - start
    receiver.join()
    print(f"{sent * 8 / seconds / 1e9:.3f} Gbit/s payload ({sent} B in {seconds:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
