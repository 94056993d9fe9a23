"""`!!` references: each case on real files, and what a real agent's model receives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import BinaryContent
from retinue import CommandsAnnouncedEvent
from retinue.testing import TeamHarness
from retinue_workspace import Workspace, sniff_image
from retinue_workspace.media import MAX_REFERENCES, ExpandedPrompt, expand_media_refs
from workspace_scripts import (
    ANSWER_SENDER,
    GIF,
    JPEG,
    LOOKER,
    WEBP,
    digest,
    png,
    workspace_card,
)

RED, GREEN, BLUE = png(255, 0, 0), png(0, 255, 0), png(0, 0, 255)


@pytest.fixture
def ws(root: Path) -> Workspace:
    root.mkdir()
    return Workspace(root)


def stock(root: Path, files: dict[str, bytes]) -> None:
    """Make the workspace's directory, holding `files` (written in their order)."""
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)


def expand(ws: Workspace, prompt: str, *, images: int = 8, image_bytes: int = 1 << 20) -> Any:
    return expand_media_refs(prompt, ws, max_images=images, max_image_bytes=image_bytes)


def images_of(expanded: Any) -> list[tuple[str | None, bytes]]:
    return [(p.identifier, p.data) for p in expanded if isinstance(p, BinaryContent)]


# ---------------------------------------------------------------------- each case


def test_an_image_reference_becomes_the_image(ws: Workspace, root: Path) -> None:
    (root / "shot.png").write_bytes(RED)

    expanded = expand(ws, "Look at !!shot.png and tell me.")

    assert isinstance(expanded, ExpandedPrompt)
    assert expanded[0] == "Look at !!shot.png"
    [image] = [p for p in expanded if isinstance(p, BinaryContent)]
    assert (image.data, image.media_type, image.identifier) == (RED, "image/png", "shot.png")
    assert expanded[2] == " and tell me."


def test_a_quoted_name_may_hold_spaces(ws: Workspace, root: Path) -> None:
    (root / "my screenshot.png").write_bytes(RED)
    (root / "other one.png").write_bytes(GREEN)

    expanded = expand(ws, "See !!\"my screenshot.png\" and !!'other one.png'")

    assert images_of(expanded) == [("my screenshot.png", RED), ("other one.png", GREEN)]


def test_a_pattern_attaches_every_matching_image_sorted_by_path(ws: Workspace, root: Path) -> None:
    (root / "shots").mkdir()
    (root / "shots" / "b.png").write_bytes(GREEN)
    (root / "shots" / "a.png").write_bytes(RED)
    (root / "shots" / "c.png").write_bytes(BLUE)
    (root / "top.png").write_bytes(RED)

    expanded = expand(ws, "Compare !!shots/*.png")

    assert images_of(expanded) == [
        ("shots/a.png", RED),
        ("shots/b.png", GREEN),
        ("shots/c.png", BLUE),
    ]
    assert str(expanded) == (
        "Compare !!shots/*.png"
        f" [image: shots/a.png]<image shots/a.png (image/png, {len(RED)} bytes)>"
        f" [image: shots/b.png]<image shots/b.png (image/png, {len(GREEN)} bytes)>"
        f" [image: shots/c.png]<image shots/c.png (image/png, {len(BLUE)} bytes)>"
    )
    assert [i for i, _ in images_of(expand(ws, "!!**/*.png"))] == [
        "shots/a.png",
        "shots/b.png",
        "shots/c.png",
        "top.png",
    ]


def test_images_per_prompt_are_capped(ws: Workspace, root: Path) -> None:
    for n in range(5):
        (root / f"{n}.png").write_bytes(png(n, n, n))

    expanded = expand(ws, "All: !!*.png, and again !!0.png", images=3)

    assert [i for i, _ in images_of(expanded)] == ["0.png", "1.png", "2.png"]
    text = "".join(p for p in expanded if isinstance(p, str))
    assert "[2 more matching images not attached: at most 3 images per message]" in text
    assert "!!0.png [not attached: at most 3 images per message]" in text


def test_a_document_gets_a_hint_to_read_it(ws: Workspace, root: Path) -> None:
    (root / "report.pdf").write_bytes(b"%PDF-1.7\n...")

    assert expand(ws, "Summarise !!report.pdf please") == (
        "Summarise !!report.pdf [not an image; read it with the workspace_read tool] please"
    )


def test_a_missing_file_is_an_inline_error(ws: Workspace) -> None:
    assert expand(ws, "Look at !!nope.png") == (
        "Look at !!nope.png [error: there is no nope.png in the workspace]"
    )
    assert expand(ws, "!!none/*.png") == (
        "!!none/*.png [error: nothing in the workspace matches none/*.png]"
    )


def test_the_content_decides_what_is_an_image_not_the_name(ws: Workspace, root: Path) -> None:
    (root / "fake.png").write_text("just text")
    (root / "scan").write_bytes(RED)
    (root / "photo.jpg").write_bytes(JPEG)
    (root / "anim.gif").write_bytes(GIF)
    (root / "pic.webp").write_bytes(WEBP)

    assert expand(ws, "!!fake.png") == (
        "!!fake.png [not an image; read it with the workspace_read tool]"
    )
    expanded = expand(ws, "!!scan !!photo.jpg !!anim.gif !!pic.webp")
    assert [p.media_type for p in expanded if isinstance(p, BinaryContent)] == [
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
    ]
    assert sniff_image(b"RIFF\x00\x00\x00\x00WAVE") is None


def test_a_pattern_names_what_it_matched_that_is_not_an_image(ws: Workspace, root: Path) -> None:
    (root / "a.png").write_bytes(RED)
    (root / "b.txt").write_text("b")

    expanded = expand(ws, "!!*")

    assert images_of(expanded) == [("a.png", RED)]
    assert str(expanded).endswith(
        " [also matched, not images: b.txt; read them with workspace_read]"
    )


def test_an_image_over_the_byte_limit_is_named_not_sent(ws: Workspace, root: Path) -> None:
    big = RED + b"\x00" * 1000
    (root / "big.png").write_bytes(big)

    assert expand(ws, "!!big.png", image_bytes=500) == (
        "!!big.png [error: big.png is too large to attach (1.0 KB; "
        "images may be at most 500 bytes)]"
    )


def test_a_directory_is_an_inline_error(ws: Workspace, root: Path) -> None:
    (root / "shots").mkdir()

    assert expand(ws, "!!shots").startswith("!!shots [error: shots is a directory")


# ---------------------------------------------------------------------- containment


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        ("!!../outside/secret.png", "uses '..'"),
        ("!!/etc/passwd", "is an absolute path"),
        ("!!escape/etc/passwd", "leads outside the workspace"),
        ("!!secret.png", "leads outside the workspace"),
        ("!!../outside/*.png", "uses '..'"),
    ],
)
def test_a_reference_never_reaches_outside_the_root(
    ws: Workspace, root: Path, outside: Path, reference: str, reason: str
) -> None:
    (outside / "secret.png").write_bytes(RED)
    (root / "escape").symlink_to("/")
    (root / "secret.png").symlink_to(outside / "secret.png")

    expanded = expand(ws, f"Show {reference} now")

    assert isinstance(expanded, str)  # no image at all
    assert expanded.startswith(f"Show {reference} [error: ")
    assert reason in expanded
    assert expanded.endswith("] now")


def test_a_pattern_skips_links_that_lead_outside(ws: Workspace, root: Path, outside: Path) -> None:
    (outside / "secret.png").write_bytes(BLUE)
    (root / "a.png").write_bytes(RED)
    (root / "b.png").symlink_to(outside / "secret.png")

    expanded = expand(ws, "!!*.png")

    assert images_of(expanded) == [("a.png", RED)]
    assert "[error: 'b.png' leads outside the workspace through a symbolic link" in str(expanded)


# ---------------------------------------------------------------------- parsing


def test_a_prompt_without_references_is_returned_as_the_same_string(ws: Workspace) -> None:
    prompt = "Nothing to see here, just excitement!! and a!!b and !!!"

    assert expand(ws, prompt) is prompt
    plain = "no bangs at all"
    assert expand(ws, plain) is plain


def test_bangs_inside_words_are_text(ws: Workspace, root: Path) -> None:
    (root / "b").write_bytes(RED)

    assert expand(ws, "a!!b wow!!") == "a!!b wow!!"
    assert images_of(expand(ws, "(!!b)")) == [("b", RED)]


def test_sentence_punctuation_after_a_bare_name_stays_text(ws: Workspace, root: Path) -> None:
    (root / "shot.png").write_bytes(RED)
    (root / "odd.png,").write_bytes(GREEN)

    expanded = expand(ws, "Look at !!shot.png. Then !!odd.png,")

    assert images_of(expanded) == [("shot.png", RED), ("odd.png,", GREEN)]
    assert [p for p in expanded if isinstance(p, str)] == [
        "Look at !!shot.png",
        ". Then !!odd.png,",
    ]


def test_references_beyond_the_cap_stay_as_written(ws: Workspace) -> None:
    prompt = " ".join(f"!!f{n}.png" for n in range(MAX_REFERENCES + 2))

    expanded = expand(ws, prompt)

    assert expanded.count("[error: there is no") == MAX_REFERENCES
    assert f"!!f{MAX_REFERENCES}.png !!f{MAX_REFERENCES + 1}.png" in expanded
    assert expanded.endswith(
        f"[Only the first {MAX_REFERENCES} !! references of this message were looked at.]"
    )


# ---------------------------------------------------------------------- through an agent


def _report(team: TeamHarness) -> dict[str, Any]:
    [answer] = team.received_by("@Human")
    report: dict[str, Any] = json.loads(answer.content)
    return report


def test_the_model_receives_the_image_bytes_as_binary_content(
    retinue_team: TeamHarness, root: Path
) -> None:
    team = retinue_team
    stock(root, {"shot.png": RED, "my screenshot.png": GREEN})
    agent = team.add(workspace_card("Viewer", root, script=LOOKER))

    team.say(agent, 'What differs between !!shot.png and !!"my screenshot.png"?')
    team.wait_idle(20)

    report = _report(team)
    assert report["images"] == [
        {
            "identifier": "shot.png",
            "media_type": "image/png",
            "size": len(RED),
            "sha256": digest(RED),
        },
        {
            "identifier": "my screenshot.png",
            "media_type": "image/png",
            "size": len(GREEN),
            "sha256": digest(GREEN),
        },
    ]
    assert "What differs between !!shot.png" in report["text"]
    assert report["parts"] == ["text", "image", "text", "image", "text"]


def test_the_model_receives_every_image_of_a_pattern_in_path_order(
    retinue_team: TeamHarness, root: Path
) -> None:
    team = retinue_team
    stock(root, {"c.png": BLUE, "a.png": RED, "b.png": GREEN, "d.png": RED})
    agent = team.add(workspace_card("Viewer", root, script=LOOKER, max_media_images=3))

    team.say(agent, "Compare !!*.png")
    team.wait_idle(20)

    report = _report(team)
    assert [(i["identifier"], i["sha256"]) for i in report["images"]] == [
        ("a.png", digest(RED)),
        ("b.png", digest(GREEN)),
        ("c.png", digest(BLUE)),
    ]
    assert "[1 more matching image not attached: at most 3 images per message]" in report["text"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Read !!report.pdf", "!!report.pdf [not an image; read it with the workspace_read tool]"),
        ("See !!gone.png", "!!gone.png [error: there is no gone.png in the workspace]"),
        ("See !!../outside/secret.txt", "!!../outside/secret.txt [error: '../outside/secret.txt'"),
    ],
)
def test_hints_and_errors_reach_the_model_as_text(
    retinue_team: TeamHarness, root: Path, content: str, expected: str
) -> None:
    team = retinue_team
    stock(root, {"report.pdf": b"%PDF-1.7"})
    agent = team.add(workspace_card("Viewer", root, script=LOOKER))

    team.say(agent, content)
    team.wait_idle(20)

    report = _report(team)
    assert report["images"] == []
    assert report["parts"] == []  # a plain string prompt: no image was attached
    assert expected in report["text"]


def test_a_message_without_references_reaches_the_model_as_a_plain_string(
    retinue_team: TeamHarness, root: Path
) -> None:
    team = retinue_team
    agent = team.add(workspace_card("Viewer", root, script=LOOKER))

    team.say(agent, "Hello!! Nothing to attach.")
    team.wait_idle(20)

    report = _report(team)
    assert report["parts"] == []
    assert "Hello!! Nothing to attach." in report["text"]


def test_the_expansion_command_is_hidden_from_people(retinue_team: TeamHarness, root: Path) -> None:
    team = retinue_team
    stock(root, {"shot.png": RED})
    agent = team.add(workspace_card("Viewer", root))
    team.wait_idle(20)

    [announced] = team.events(CommandsAnnouncedEvent)
    names = {d.name for d in announced.commands}
    assert "_expand_media_refs" not in names
    assert "workspace_list" in names
    # still there for the kernel (and reachable by hand, where it shows no raw bytes)
    assert team.command(agent, "/_expand_media_refs 'see !!shot.png'", timeout=20) == (
        f"see !!shot.png<image shot.png (image/png, {len(RED)} bytes)>"
    )


def test_a_first_turn_with_an_image_after_an_operator_action_knows_its_sender(
    retinue_team: TeamHarness, root: Path
) -> None:
    team = retinue_team
    stock(root, {"shot.png": RED})
    agent = team.add(workspace_card("Viewer", root, script=ANSWER_SENDER))
    team.command(agent, "/workspace_list", timeout=20)  # held, folded into the next prompt

    team.say(agent, "Look at !!shot.png")
    team.wait_idle(20)

    assert team.received_by("@Human")[-1].content == "answered @Human"
