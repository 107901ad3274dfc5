"""What a boot is waiting for, so a timeout or crash can say where it happened (no SDK import here)."""

from __future__ import annotations


class Stage:
    def __init__(self) -> None:
        self.current = "starting the server"

    def __str__(self) -> str:
        return self.current
