"""Run the view: bind a socket (127.0.0.1 and a free port unless told otherwise), print
the URL with its token, and serve until interrupted."""

from __future__ import annotations

import os
import socket
import sys

from .. import signals
from ..errors import ConfigError
from ..study.load import Study
from .app import ViewSettings, create_app

LOCAL = "127.0.0.1"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; port 0 picks a free one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(
    study: Study, settings: ViewSettings, *, host: str = LOCAL, port: int = 0
) -> None:
    import uvicorn

    if host != LOCAL:
        settings.hosts = None
        print(
            f"itemeval view: warning: serving on {host}, so anyone who can reach it "
            "and has the URL's token can read this study and write labels",
            file=sys.stderr,
        )
    app = create_app(study, settings)  # a bad --rubric or --scale fails here
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise ConfigError(
            f"--port/--host: cannot listen on {host}:{port}: {exc.strerror}"
        ) from None
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)

    def stop(number: int, frame: object) -> None:
        server.should_exit = True  # read by uvicorn's loop, even while it starts

    # Ours until uvicorn puts its own in place, and again after it: a Ctrl-C as soon
    # as the address is shown stops the server (Python's own handler raised
    # KeyboardInterrupt wherever uvicorn was starting, and inside a finalizer that
    # was lost: the view served on)
    with signals.sigint_as(stop):
        shown = f"[{host}]" if ":" in host else host
        print(
            "itemeval view: "
            f"http://{shown}:{sock.getsockname()[1]}/?token={settings.token}",
            flush=True,
        )
        server.run(sockets=[sock])
    # The server ends only on a signal (exit 130 for Ctrl-C). Every label is on disk
    # when its request returns. Leave without the interpreter's teardown: a native
    # thread pool torn down there now and then aborted the process ("terminate
    # called without an active exception").
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(signals.interrupted_exit_code())
