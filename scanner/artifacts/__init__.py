"""What a launch actually ran: the package, image or script behind a server, read from the package
manager's own records after the boot (never by downloading anything again), and advisories about it."""
