#!/usr/bin/python3
"""A UDP relay on 127.0.0.1 that holds every datagram DELAY_MS before passing it on, in each
direction: a link whose round trip is twice that, for tests of what a protocol measures of its
link (the kernel's netem is not on every machine). Datagrams from the newest client on
LISTEN_PORT go to 127.0.0.1:TARGET_PORT, and the answers back to that client. Runs until
killed.

usage: udp_delay_relay.py LISTEN_PORT TARGET_PORT DELAY_MS
"""
import heapq
import select
import socket
import sys
import time


def main(listen_port, target_port, delay_ms):
    delay = delay_ms / 1000
    front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    front.bind(("127.0.0.1", listen_port))
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.connect(("127.0.0.1", target_port))
    client = None
    waiting = []  # (due, order, towards the target?, datagram)
    order = 0
    while True:
        timeout = max(0.0, waiting[0][0] - time.monotonic()) if waiting else None
        readable, _, _ = select.select([front, back], [], [], timeout)
        for side in readable:
            try:
                data, address = side.recvfrom(65536)
            except OSError:
                continue  # the target is not there yet: its port refused a datagram
            if side is front:
                client = address
            heapq.heappush(waiting, (time.monotonic() + delay, order, side is front, data))
            order += 1
        now = time.monotonic()
        while waiting and waiting[0][0] <= now:
            _, _, onward, data = heapq.heappop(waiting)
            try:
                if onward:
                    back.send(data)
                elif client is not None:
                    front.sendto(data, client)
            except OSError:
                pass  # a datagram lost, as on any link


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
