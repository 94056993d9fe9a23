"""Which addresses `web_fetch` may reach, checked on the very address it connects to.

A page, or whoever answers its host's DNS, could point a fetch at the machine's own services
(127.0.0.1), a cloud's metadata service (169.254.169.254) or the intranet (10.0.0.0/8). So
`PinnedTransport` resolves the host once, checks the address, and connects to that address
itself: no second lookup for DNS rebinding to answer differently. The Host header and TLS's
server name stay the URL's, so virtual hosts and certificates work as usual. A client
following redirects sends every hop through the transport, so each is checked the same way.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address

import httpx

from retinue_web_search.errors import AddressRefusedError, WebSearchError

IPAddress = IPv4Address | IPv6Address
Network = IPv4Network | IPv6Network

_PORTS = {"http": 80, "https": 443}


def is_public(address: IPAddress) -> bool:
    """Whether `address` is on the public internet: not private, loopback, link-local,
    shared, reserved, unspecified or multicast (an IPv4 address mapped in IPv6 as itself)."""
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


@dataclass(frozen=True)
class AddressPolicy:
    """Public addresses, and those of the `allow` networks (an intranet, a test's loopback)."""

    allow: tuple[Network, ...] = ()

    def allows(self, address: IPAddress) -> bool:
        if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return is_public(address) or any(address in network for network in self.allow)

    def pick(self, host: str, port: int) -> str:
        """The address to connect to for `host`: the first it resolves to that is allowed.

        `AddressRefusedError` when none is, naming the address; nothing has connected then.
        """
        addresses = resolve(host, port)
        for address in addresses:
            if self.allows(address):
                return str(address)
        first = addresses[0]
        what = host if str(first) == host.strip("[]") else f"{host} resolves to {first}, which"
        raise AddressRefusedError(
            f"{what} is a private, loopback or link-local address; "
            "web_fetch reaches public addresses only"
        )


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address `host` names (itself, for an address), in the resolver's order."""
    try:
        return [ip_address(host.strip("[]"))]
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise WebSearchError(f"the host {host} cannot be found ({exc})") from None
    addresses: list[IPAddress] = []
    for *_, sockaddr in found:
        address = ip_address(str(sockaddr[0]).partition("%")[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise WebSearchError(f"the host {host} has no address")
    return addresses


class PinnedTransport(httpx.BaseTransport):
    """Sends each request to the checked address of its host, keeping its Host and TLS name."""

    def __init__(self, policy: AddressPolicy, inner: httpx.BaseTransport | None = None) -> None:
        self._policy = policy
        self._inner = inner if inner is not None else httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        port = url.port if url.port is not None else _PORTS.get(url.scheme, 0)
        address = self._policy.pick(url.host, port)
        pinned = httpx.Request(
            request.method,
            url.copy_with(host=address),
            headers=request.headers,  # holds the URL's Host, set when the request was built
            stream=request.stream,
            extensions={**request.extensions, "sni_hostname": url.host},
        )
        return self._inner.handle_request(pinned)

    def close(self) -> None:
        self._inner.close()
