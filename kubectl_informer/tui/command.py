"""k9s's `:` command mode: a registry of commands, and the app's mixin.

``:pods``, ``:deploy -n kube-system``, ``:svc -A`` switch the resource (a
name that is no command is a resource, as in k9s); ``:profile 1.36``,
``:fifo real``, ``:watchlist off`` and the key ``P`` switch client-go's
machinery. Each restarts the pipeline (``lifecycle.Running.restart``) on the
same cluster, in a worker thread so the UI keeps drawing; a failure is one
notification and the old pipeline keeps running.

Adding a command (another module; imported before the app starts)::

    from kubectl_informer.tui.command import COMMANDS

    @COMMANDS.command("hello", help="say hello", usage="hello [NAME]")
    def hello(app, args):
        app.notify(f"hello {' '.join(args) or 'world'}")

A handler gets the app and the words after the name (shell quoting), and
raises ``CommandError`` for a one-line complaint. A restart is asked with
``app.restart_pipeline(what, derive)``: ``derive`` makes the new run's
config from the running one (``RunConfig.switch_resource``,
``with_profile``), never from loose values. After a restart the app posts
``PipelineRestarted`` (an ``on_pipeline_restarted`` handler) and
``app.current_run()`` is the new Run.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from textual.message import Message

from kubectl_informer.core.names import InvalidName, check_namespace, check_resource
from kubectl_informer.core.profiles import PROFILES, resolve_profile
from kubectl_informer.core.scope import Scope


class CommandError(Exception):
    """What was wrong with a command, in one line (shown as a notification)."""


@dataclass(frozen=True)
class Command:
    name: str
    run: Callable[[Any, list[str]], None]
    help: str
    usage: str = ""
    aliases: tuple[str, ...] = ()


class CommandRegistry:
    """Name (and aliases) -> Command, in the order added."""

    def __init__(self) -> None:
        self._commands: list[Command] = []
        self._by_name: dict[str, Command] = {}

    def add(self, command: Command) -> Command:
        for name in (command.name, *command.aliases):
            if name in self._by_name:
                raise ValueError(f"command {name!r} is registered twice")
        self._commands.append(command)
        for name in (command.name, *command.aliases):
            self._by_name[name] = command
        return command

    def command(self, name: str, *, help: str, usage: str = "", aliases: tuple[str, ...] = ()):
        """Decorator: register ``fn(app, args)`` as ``:name``."""

        def register(fn: Callable[[Any, list[str]], None]) -> Callable[[Any, list[str]], None]:
            self.add(Command(name, fn, help, usage or name, tuple(aliases)))
            return fn

        return register

    def get(self, name: str) -> Command | None:
        return self._by_name.get(name)

    def names(self) -> list[str]:
        return list(self._by_name)

    def __iter__(self) -> Iterator[Command]:
        return iter(self._commands)


COMMANDS = CommandRegistry()

# The resource switch is no registered name: any other word is a resource.
RESOURCE_USAGE = "RESOURCE [-n NAMESPACE | -A]"
RESOURCE_HELP = (
    "watch another resource (pods, deploy, cm, widgets...) in the same run: restarts the pipeline; "
    "in a run with several informers, one of its own (:rs) is shown in every pane instead"
)


def split_command(text: str) -> tuple[str, list[str]]:
    """``":deploy -n kube-system"`` -> ``("deploy", ["-n", "kube-system"])``."""
    text = text.strip().removeprefix(":").strip()
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise CommandError(f"cannot read {text!r}: {e}") from None
    if not words:
        raise CommandError("type a command: pods, deploy -n kube-system, profile 1.36, help, q")
    return words[0], words[1:]


def run_command(app: Any, text: str) -> None:
    """Run one command line on ``app``; CommandError for a bad one."""
    name, args = split_command(text)
    cmd = COMMANDS.get(name)
    if cmd is not None:
        cmd.run(app, args)
    elif not args and _select_informer(app, name):
        return  # several informers: `:rs` shows the run's ReplicaSet informer, nothing restarts
    else:
        switch_resource(app, name, args)


def _select_informer(app: Any, name: str) -> bool:
    choice = getattr(app, "informer_choice", None)
    return choice is not None and choice.named(name)


def parse_scope(args: list[str]) -> Scope | None:
    """``-n NS`` / ``--namespace NS`` / ``--namespace=NS`` / ``-A``: the
    scope asked for; None when none is given (the current one carries over)."""
    out: dict[str, Any] = {}
    it = iter(args)
    for a in it:
        if a in ("-A", "--all-namespaces"):
            ns, every = None, True
        elif a in ("-n", "--namespace"):
            ns, every = next(it, None), False
            if not ns:
                raise CommandError(f"{a} needs a namespace, e.g. {a} kube-system")
        elif a.startswith("--namespace=") or (a.startswith("-n") and len(a) > 2):
            ns, every = a.split("=", 1)[1] if a.startswith("--") else a[2:], False
        else:
            raise CommandError(f"unexpected {a!r}: {RESOURCE_USAGE}")
        if out and out["all_namespaces"] != every:
            raise CommandError("-n and -A cannot be used together")
        out.update(namespace=_checked(check_namespace, ns) if ns is not None else None, all_namespaces=every)
    return Scope(**out) if out else None


def _checked(check: Callable[[str], str], value: str) -> str:
    """A value that becomes part of a URL, checked as the command line's
    (core.names): kubectl's words as the notification."""
    try:
        return check(value)
    except InvalidName as e:
        raise CommandError(str(e)) from None


def switch_resource(app: Any, resource: str, args: list[str]) -> None:
    _checked(check_resource, resource)
    scope = parse_scope(args)
    app.restart_pipeline(f":{' '.join([resource, *args])}", lambda c: c.switch_resource(resource, scope))


def _one_arg(args: list[str], usage: str) -> str:
    if len(args) != 1:
        raise CommandError(f"usage: :{usage}")
    return args[0]


@COMMANDS.command(
    "profile",
    usage="profile 1.32|1.35|1.36",
    help="run another client-go's machinery on the same traffic (1.32 DeltaFIFO + LIST, "
    "1.35 RealFIFO + WatchList, 1.36 atomic RealFIFO); clears :fifo and :watchlist",
)
def _profile(app: Any, args: list[str]) -> None:
    version = _one_arg(args, "profile 1.32|1.35|1.36")
    try:
        profile = resolve_profile(version)
    except ValueError as e:
        raise CommandError(str(e).replace("--client-go", ":profile")) from None
    if profile.client_go not in PROFILES:
        # Only what this build runs: 1.99 would label the header with a client-go that is not.
        raise CommandError(f'unknown :profile "{version}": choose {", ".join(PROFILES)}')
    app.restart_pipeline(f":profile {version}", lambda c: c.with_profile(profile))


@COMMANDS.command("fifo", usage="fifo real|delta", help="the informer's queue: RealFIFO or DeltaFIFO")
def _fifo(app: Any, args: list[str]) -> None:
    which = _one_arg(args, "fifo real|delta").lower()
    if which not in ("real", "delta"):
        raise CommandError(f"unknown FIFO {which!r}: :fifo real or :fifo delta")
    app.restart_pipeline(f":fifo {which}", lambda c: c.with_profile(c.profile.with_fifo(which)))


_ON = {"on": True, "true": True, "yes": True, "off": False, "false": False, "no": False}


@COMMANDS.command(
    "watchlist", usage="watchlist on|off", help="the initial list as a WatchList stream (on) or a paged LIST (off)"
)
def _watchlist(app: Any, args: list[str]) -> None:
    word = _one_arg(args, "watchlist on|off").lower()
    if word not in _ON:
        raise CommandError(f"{word!r}: :watchlist on or :watchlist off")
    app.restart_pipeline(f":watchlist {word}", lambda c: c.with_profile(c.profile.with_watch_list(_ON[word])))


@COMMANDS.command(
    "consistency",
    usage="consistency on|off",
    help="--demo stale: the controller's read-your-own-writes check (ConsistencyStore), "
    "switched live on the same traffic",
)
def _consistency(app: Any, args: list[str]) -> None:
    word = _one_arg(args, "consistency on|off").lower()
    if word not in _ON:
        raise CommandError(f"{word!r}: :consistency on or :consistency off")
    run = app.current_run()
    if run is None or not getattr(run, "set_consistency", lambda _on: False)(_ON[word]):
        raise CommandError("no controller here writes: the check runs in `queue replicasets --owns pods --demo stale`")
    app.notify(f"read-your-own-writes check {'on' if _ON[word] else 'off'}", timeout=3)


@COMMANDS.command("help", aliases=("?",), help="the keys, the panes and these commands")
def _help(app: Any, args: list[str]) -> None:
    app.action_help()


@COMMANDS.command("quit", aliases=("q", "q!"), help="quit")
def _quit(app: Any, args: list[str]) -> None:
    app.exit()


def help_rows() -> list[tuple[str, str]]:
    """(usage, help) of every command, for the help screen and docs."""
    rows = [(f":{c.usage}" + (f"  (:{', :'.join(c.aliases)})" if c.aliases else ""), c.help) for c in COMMANDS]
    return [(f":{RESOURCE_USAGE}", RESOURCE_HELP), *rows]


def next_profile(current: str) -> str:
    """The profile ``P`` switches to: the next newer of 1.32, 1.35, 1.36, round."""
    names = list(PROFILES)

    def minor(version: str) -> int:
        try:
            return int(str(version).lstrip("v").split(".")[1])
        except (IndexError, ValueError):
            return -1

    newer = [n for n in names if minor(n) > minor(current)]
    return newer[0] if newer else names[0]


class PipelineRestarted(Message):
    """Posted to the app once the panes were reset for a new run."""

    def __init__(self, run: Any, info: Any) -> None:
        super().__init__()
        self.run = run
        self.info = info


@COMMANDS.command(
    "ns",
    usage="ns NAME|-A",
    aliases=("namespace",),
    help="the same resource in namespace NAME, or in every namespace (-A), as k9s's :ns",
)
def _ns(app: Any, args: list[str]) -> None:
    word = _one_arg(args, "ns NAME|-A")
    scope = Scope(None, True) if word in ("-A", "--all-namespaces", "all") else Scope(_checked(check_namespace, word))
    app.restart_pipeline(f":ns {word}", lambda c: c.with_scope(scope))


@COMMANDS.command(
    "ctx",
    usage="ctx NAME",
    aliases=("context",),
    help="the same resource in another kubeconfig context (its cluster, user and namespace)",
)
def _ctx(app: Any, args: list[str]) -> None:
    name = _one_arg(args, "ctx NAME")
    info = getattr(app.header_state, "info", None)
    if getattr(info, "demo_scenario", None):
        raise CommandError("the simulated cluster has one context: :ctx needs a kubeconfig's contexts")
    app.restart_pipeline(f":ctx {name}", lambda c: c.with_context(name))
