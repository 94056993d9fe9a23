"""The address check: what is refused, and that the connection goes to the address checked.

These never connect anywhere: the transport under test hands its request to a recording
`httpx.MockTransport`, so an address outside 127.0.0.0/8 is only ever a string here.
"""

from __future__ import annotations

from ipaddress import ip_address, ip_network

import httpx
import pytest
from retinue_web_search import AddressPolicy, AddressRefusedError, PinnedTransport, is_public

REFUSED = [
    "127.0.0.1",
    "169.254.169.254",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
]


@pytest.mark.parametrize("address", REFUSED)
def test_private_loopback_link_local_and_the_like_are_not_public(address: str) -> None:
    assert not is_public(ip_address(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.215.14", "2606:4700::1111"])
def test_public_addresses_are(address: str) -> None:
    assert is_public(ip_address(address))


def recording() -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/hop":
            return httpx.Response(302, headers={"Location": "http://169.254.169.254/latest/"})
        return httpx.Response(200, text="ok")

    return httpx.MockTransport(answer), seen


@pytest.mark.parametrize(
    "url", ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://[::1]:8080/"]
)
def test_a_refused_address_never_reaches_the_transport_below(url: str) -> None:
    inner, seen = recording()
    client = httpx.Client(transport=PinnedTransport(AddressPolicy(), inner))

    with pytest.raises(AddressRefusedError, match="private, loopback or link-local"):
        client.get(url)
    assert seen == []


def test_every_redirect_hop_is_checked() -> None:
    inner, seen = recording()
    policy = AddressPolicy((ip_network("127.0.0.1/32"),))
    client = httpx.Client(transport=PinnedTransport(policy, inner), follow_redirects=True)

    with pytest.raises(AddressRefusedError, match=r"^169\.254\.169\.254 is a private"):
        client.get("http://127.0.0.1/hop")
    assert [str(request.url) for request in seen] == ["http://127.0.0.1/hop"]


def test_the_connection_goes_to_the_checked_address_with_the_names_host_and_tls_name() -> None:
    inner, seen = recording()
    policy = AddressPolicy((ip_network("127.0.0.0/8"),))  # localhost's ::1 stays refused
    client = httpx.Client(transport=PinnedTransport(policy, inner))

    assert client.get("https://localhost:8443/page?q=1").text == "ok"

    (sent,) = seen
    assert str(sent.url) == "https://127.0.0.1:8443/page?q=1"  # no second lookup to rebind
    assert sent.headers["host"] == "localhost:8443"
    assert sent.extensions["sni_hostname"] == "localhost"  # the certificate checked is the name's
