"""mcp-lock's relay inside a package-manager step's sandbox: run by bwrap as
`python -I -S relay.py SOCKET PORT -- COMMAND...`, it listens on 127.0.0.1:PORT of the step's own network
namespace, detaches a process that hands each connection to the gate's Unix socket SOCKET (scanner.install
.netgate, outside the sandbox, which decides what passes), and then becomes COMMAND (the package manager).

It holds no decision: package code in the step could reach the Unix socket itself and meets the same gate.
Standard library only, and nothing of mcp-lock is imported (it runs with -I -S, before the package manager).
"""

import contextlib
import errno
import os
import socket
import sys

CHUNK = 64 * 1024
PIPE = 1024 * 1024  # the kernel pipe between a connection's two sockets (64 KiB if refused)


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        if not _spliced(source, target):
            while True:
                data = source.recv(CHUNK)
                if not data:
                    break
                target.sendall(data)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        target.shutdown(socket.SHUT_WR)


def _spliced(source: socket.socket, target: socket.socket) -> bool:
    """Copies source to target through a kernel pipe (os.splice: the bytes never come up into Python); False,
    having moved nothing, where splice is not available (the caller then copies)."""
    if not hasattr(os, "splice"):
        return False
    read, write = os.pipe()
    try:
        with contextlib.suppress(OSError):
            import fcntl

            fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, PIPE)
        started = False
        while True:
            try:
                got = os.splice(source.fileno(), write, PIPE, flags=os.SPLICE_F_MOVE)
            except OSError as error:
                if not started and error.errno in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                    return False
                raise
            started = True
            if got == 0:
                return True
            while got:
                got -= os.splice(read, target.fileno(), got, flags=os.SPLICE_F_MOVE)
    finally:
        os.close(read)
        os.close(write)


def _serve(client: socket.socket, path: str) -> None:
    import threading

    with client:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            upstream.close()
            return
        with upstream:
            back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
            back.start()
            _pump(client, upstream)
            back.join()


def _relay(listener: socket.socket, path: str) -> None:
    import threading  # after the package manager started: not on its way

    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the package manager's pipes close when it ends, not when the relay does
        os.dup2(quiet, fd)
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            continue
        threading.Thread(target=_serve, args=(client, path), daemon=True).start()


def main() -> None:
    path, port, separator, *command = sys.argv[1:]
    if separator != "--" or not command:
        sys.exit("usage: relay.py SOCKET PORT -- COMMAND...")
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))
    listener.listen(64)
    child = os.fork()
    if child == 0:  # twice, so that the relay is the namespace's init's child, not the package manager's
        if os.fork() == 0:
            _relay(listener, path)
        os._exit(0)
    os.waitpid(child, 0)
    listener.close()
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.exit(f"relay: cannot start {command[0]}: {error.strerror or error}")


if __name__ == "__main__":
    main()
