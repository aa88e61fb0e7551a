"""The tests' network guard: a ``getaddrinfo`` that resolves only IP literals and localhost, failing
like an offline machine for any other name (used in-process by conftest and in the CLI fork server)."""
from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable


def offline_getaddrinfo(real: Callable) -> Callable:
    def getaddrinfo(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        try:
            ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            if name.lower() != "localhost":
                raise socket.gaierror(socket.EAI_NONAME, f"tests are offline: no lookup of {name}") from None
        return real(host, *args, **kwargs)

    return getaddrinfo
