"""The command registry and the command line's parsing (no app needed)."""

import pytest

from kubectl_informer.core.profiles import Profile
from kubectl_informer.core.scope import Scope
from kubectl_informer.run.config import RunConfig
from kubectl_informer.tui.command import (
    COMMANDS,
    Command,
    CommandError,
    CommandRegistry,
    help_rows,
    next_profile,
    parse_scope,
    run_command,
    split_command,
)


def test_a_registry_maps_names_and_aliases_and_refuses_a_name_twice():
    reg = CommandRegistry()

    @reg.command("hello", help="say hello", usage="hello [NAME]", aliases=("hi",))
    def hello(app, args):
        app.append(args)

    assert reg.get("hello") is reg.get("hi") and reg.get("hello").usage == "hello [NAME]"
    assert [c.name for c in reg] == ["hello"] and reg.names() == ["hello", "hi"]
    got = []
    reg.get("hi").run(got, ["you"])
    assert got == [["you"]]
    with pytest.raises(ValueError, match="'hi' is registered twice"):
        reg.add(Command("other", hello, "x", aliases=("hi",)))
    assert reg.get("other") is None


def test_the_builtin_commands_are_registered_with_help():
    for name in ("profile", "fifo", "watchlist", "help", "quit", "q", "q!"):
        assert COMMANDS.get(name) is not None, name
    rows = dict(help_rows())
    assert ":RESOURCE [-n NAMESPACE | -A]" in rows and ":profile 1.32|1.35|1.36" in rows
    assert any(u.startswith(":quit") and ":q" in u for u in rows)


@pytest.mark.parametrize(
    "text, expected",
    [
        (":pods", ("pods", [])),
        ("deploy -n kube-system", ("deploy", ["-n", "kube-system"])),
        (":  svc   -A ", ("svc", ["-A"])),
        (':profile "1.36"', ("profile", ["1.36"])),
    ],
)
def test_split_command(text, expected):
    assert split_command(text) == expected


@pytest.mark.parametrize("text, message", [(":", "type a command"), (":pods 'x", "cannot read")])
def test_split_command_refuses(text, message):
    with pytest.raises(CommandError, match=message):
        split_command(text)


@pytest.mark.parametrize(
    "args, expected",
    [
        ([], None),
        (["-n", "kube-system"], Scope("kube-system")),
        (["--namespace=shop"], Scope("shop")),
        (["-nshop"], Scope("shop")),
        (["-A"], Scope(None, True)),
        (["--all-namespaces"], Scope(None, True)),
    ],
)
def test_parse_scope(args, expected):
    assert parse_scope(args) == expected


@pytest.mark.parametrize(
    "args, message",
    [
        (["-n"], "-n needs a namespace"),
        (["-n", "a", "-A"], "cannot be used together"),
        (["web"], "unexpected 'web'"),
    ],
)
def test_parse_scope_refuses(args, message):
    with pytest.raises(CommandError, match=message):
        parse_scope(args)


class FakeApp:
    """What a command calls on the app (the Pilot tests drive the real one)."""

    def __init__(self):
        self.restarts = []
        self.exited = False

    def restart_pipeline(self, what, derive):
        self.restarts.append((what, derive))

    def exit(self):
        self.exited = True


# The running config the commands derive from: one object of deployments in
# shop, client-go 1.36 with its FIFO and initial list overridden.
RUNNING = RunConfig.from_flags(
    resource="deploy", name="web", namespace="shop", client_go="1.36", fifo="delta", watch_list=False, resync=3.0
)
SHOP = Scope("shop")


@pytest.mark.parametrize(
    "text, resource, name, scope, profile",
    [
        (":pods", "pods", None, Scope("shop", inherited=True), RUNNING.profile),
        (":deploy -n kube-system", "deploy", None, Scope("kube-system"), RUNNING.profile),
        (":svc -A", "svc", None, Scope(None, True), RUNNING.profile),
        (":profile 1.36", "deploy", "web", SHOP, Profile("1.36", "real", True, True)),
        (":profile v1.35", "deploy", "web", SHOP, Profile("1.35", "real", True, False)),
        (":fifo REAL", "deploy", "web", SHOP, Profile("1.36", "real", False, True)),
        (":watchlist on", "deploy", "web", SHOP, Profile("1.36", "delta", True, False)),
    ],
)
def test_commands_derive_the_config_they_name(text, resource, name, scope, profile):
    app = FakeApp()
    run_command(app, text)
    [(what, derive)] = app.restarts
    new = derive(RUNNING)
    assert (new.resource, new.name, new.scope, new.profile) == (resource, name, scope, profile)
    # Nothing else changes, and the running config is left as it was.
    assert RUNNING.changed_fields(new) <= {"resource", "name", "scope", "profile"} and RUNNING.resync == 3.0
    assert what.lower() == text.lower()  # the notification names it


def test_watchlist_off_keeps_the_fifo():
    app = FakeApp()
    run_command(app, ":watchlist off")
    running = RunConfig.from_flags(client_go="1.36")
    assert app.restarts[0][1](running).profile == Profile("1.36", "real", False, True)


@pytest.mark.parametrize(
    "text, message",
    [
        (":profile", "usage: :profile"),
        (":profile 2.0", 'invalid :profile "2.0"'),
        (":profile 1.99", 'unknown :profile "1.99": choose 1.32, 1.35, 1.36'),
        (":profile 1.33", 'unknown :profile "1.33": choose 1.32, 1.35, 1.36'),
        (":fifo blue", "unknown FIFO 'blue'"),
        (":watchlist maybe", ":watchlist on or :watchlist off"),
        (":pods -x", "unexpected '-x'"),
    ],
)
def test_bad_commands_say_why_in_one_line(text, message):
    app = FakeApp()
    with pytest.raises(CommandError, match=message) as e:
        run_command(app, text)
    assert "\n" not in str(e.value) and app.restarts == []


@pytest.mark.parametrize("text", [":q", ":quit", ":q!"])
def test_quit(text):
    app = FakeApp()
    run_command(app, text)
    assert app.exited


def test_p_cycles_the_profiles_round():
    assert [next_profile(p) for p in ("1.32", "1.35", "1.36", "1.33", "1.28", "1.40")] == [
        "1.35",
        "1.36",
        "1.32",
        "1.35",
        "1.32",
        "1.32",
    ]


def test_the_docs_example_of_adding_a_command_runs(monkeypatch):
    from pathlib import Path

    import kubectl_informer.tui.command as command

    fresh = CommandRegistry()
    monkeypatch.setattr(command, "COMMANDS", fresh)
    text = (Path(__file__).parents[2] / "docs" / "commands.md").read_text()
    exec(text.split("## Adding a command")[1].split("```python\n")[1].split("```")[0], {})

    class App:
        said = []

        def notify(self, message):
            self.said.append(message)

    app = App()
    command.run_command(app, ":hello you")
    assert app.said == ["hello you"] and fresh.get("hello").help == "say hello"
    with pytest.raises(CommandError, match="usage: :hello"):
        command.run_command(app, ":hello a b")
