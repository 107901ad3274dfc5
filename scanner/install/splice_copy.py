"""The gate's copy of one direction of a connection (scanner.install.netgate): through a kernel pipe with
os.splice, so that an install's bytes never come up into Python; the gate's byte budget and idle bound kept.

The sockets must be in timeout mode (non-blocking underneath): every wait is a poll bounded by idle_ms.
"""

import contextlib
import errno
import fcntl
import os
import select
import socket
from collections.abc import Callable

SPLICE_PIPE = 1024 * 1024  # the kernel pipe between a connection's two sockets (the default 64 KiB if refused)


def spliced(source: socket.socket, target: socket.socket, over: Callable[[int], bool], idle_ms: int) -> bool:
    """Copies source to target through a kernel pipe (os.splice: the bytes never come up into Python), each wait
    bounded by idle_ms and each received chunk counted by `over` before it goes on; False, having moved
    nothing, where splice is not available for these sockets (then the caller copies them itself)."""
    if not hasattr(os, "splice") or type(source) is not socket.socket or type(target) is not socket.socket:
        return False
    read, write = os.pipe()
    try:
        with contextlib.suppress(OSError):
            fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, SPLICE_PIPE)
        flags = os.SPLICE_F_MOVE | os.SPLICE_F_NONBLOCK
        try:
            incoming, outgoing = _poller(source, select.POLLIN), _poller(target, select.POLLOUT)
        except ValueError:  # a socket closed under the copy (the gate closing: its fileno is -1): nothing to move
            return True
        started = False
        while True:
            if not incoming.poll(idle_ms):
                return True
            try:
                got = os.splice(source.fileno(), write, SPLICE_PIPE, flags=flags)
            except BlockingIOError:
                continue
            except OSError as error:
                if not started and error.errno in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                    return False
                raise
            started = True
            if got == 0 or over(got):
                return True
            while got:
                try:
                    got -= os.splice(read, target.fileno(), got, flags=flags)
                except BlockingIOError:
                    if not outgoing.poll(idle_ms):
                        return True
    finally:
        os.close(read)
        os.close(write)


def _poller(sock: socket.socket, event: int) -> select.poll:
    """A poll of sock for `event` (an error or hang-up also wakes it: the next splice then says what it is)."""
    poller = select.poll()
    poller.register(sock.fileno(), event)
    return poller
