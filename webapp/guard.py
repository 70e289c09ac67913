"""Only this server's own pages, and scripts, may drive it: the Host and Origin check.

A server on 127.0.0.1 is reachable by every page the person's browser opens. Two ways in:

* **DNS rebinding**: a site's name made to resolve to 127.0.0.1, so its scripts read this
  server's answers as their own. Their requests carry the site's name in ``Host``, so a request
  is refused unless ``Host`` is an IP address, ``localhost``, or a name the operator allowed
  (``camelup serve --allowed-host NAME``): a rebound name is none of these.
* **Cross-site requests** (a form, an image, a link or a script on another site sending
  ``/play`` or a move). A browser says where a request comes from: ``Origin`` (scripts and
  forms) and ``Sec-Fetch-Site`` (every request of a current browser). A request whose ``Origin``
  is not this server, or that a browser marks ``cross-site`` or ``same-site`` (another port or
  sub-domain), is refused, except a visit to the start page and its style sheet, which change
  nothing. A script that is no browser (``curl``, a benchmark) sends neither header and is let
  through: it could send anything anyway.

Refusals are one line, ``error: ...``, with status 400 (a bad ``Host``) or 403.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

#: paths another site may link to: they show the start page and change nothing
OPEN_PATHS = ("/", "/static/style.css")


def _hostname(host: str) -> str:
    """``Host``'s name without its port (``[::1]:8000`` -> ``::1``)."""
    return (urlsplit(f"//{host}").hostname or "").lower()


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def refusal(headers: Headers, path: str, names: frozenset[str]) -> tuple[int, str] | None:
    """Why a request with these headers may not reach the app (module docstring), or None."""
    host = headers.get("host", "")
    name = _hostname(host)
    if not name or not (_is_ip(name) or name == "localhost" or name in names):
        return 400, (
            f"Host {host[:80]!r} is not a name of this server (camelup serve --allowed-host "
            "NAME adds one)"
        )
    if path in OPEN_PATHS:
        return None
    origin = headers.get("origin")
    if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
        return 403, f"a page of another site ({origin[:80]}) may not use this server"
    site = headers.get("sec-fetch-site")
    if site in ("cross-site", "same-site"):
        return 403, "a page of another site may not use this server (Sec-Fetch-Site: " + site + ")"
    return None


class SameSiteOnly:
    """ASGI middleware that answers :func:`refusal`'s requests itself."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.names = frozenset(h.lower() for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = refusal(Headers(scope=scope), scope["path"], self.names)
            if problem is not None:
                status, message = problem
                await PlainTextResponse(f"error: {message}\n", status_code=status)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)
