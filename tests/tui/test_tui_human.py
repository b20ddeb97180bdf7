"""The human runner: a modal shows the node path and prompt and takes the answer;
approval phases open approve / reject / edit."""

from __future__ import annotations

from textual.widgets import TextArea

from tftui.tui.screens.modals import AnswerScreen, ApprovalScreen


async def test_human_answers_and_approves(h):
    from tftui.agents.human import HumanRunner

    holder = {}
    runner = HumanRunner(lambda request: holder["app"].ask_human(request))
    app = h.make_app(h.FIXTURES / "human.json", runner=runner)
    holder["app"] = app
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))
        screen = app.screen
        assert screen.node_path == "idea"
        assert "Name one colour." in str(screen.query_one("#answer-prompt").render())
        screen.query_one(TextArea).insert("teal\nnot red")
        await pilot.press("ctrl+s")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert app.state.phases["idea"].output == "teal\nnot red"
        assert "Ship the colour teal" in app.screen.message
        await pilot.press("ctrl+o")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))
        assert app.screen.node_path == "ship"
        app.screen.query_one(TextArea).insert("shipped")
        await pilot.press("ctrl+s")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"
        assert app.state.phases["ok"].output == "(approve)"
        assert app.state.phases["ship"].output == "shipped"
        assert runner.answered == 2


async def test_reject_with_note_blocks_the_run(h):
    app = h.make_human_app(h.FIXTURES / "human.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))
        app.screen.query_one(TextArea).insert("blue")
        await pilot.press("ctrl+s")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        app.screen.query_one(TextArea).insert("not this one")
        await pilot.press("ctrl+r")
        await h.run_to_end(pilot, app)
        assert app.state.status == "blocked"
        assert h.statuses(app)["ok"] == "blocked"
        assert app.state.phases["ok"].gate == {"verdict": "block", "reason": "not this one"}
        assert h.statuses(app)["ship"] == "skipped"


async def test_approval_does_not_repeat_output_the_message_already_quotes(h):
    app = h.make_human_app(h.FIXTURES / "human.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))
        app.screen.query_one(TextArea).insert("teal")
        await pilot.press("ctrl+s")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        assert "Ship the colour teal" in screen.message
        # the task quotes {steps.idea.output}: the output is not shown a second time below it
        from textual.widgets import Static

        shown = [str(w.render()) for w in screen.query(Static)]
        assert sum("teal" in text for text in shown) == 1, shown
        await pilot.press("ctrl+r")
        await h.run_to_end(pilot, app)


async def test_approval_buttons_fit_at_80x24_with_a_long_output(h, tmp_path):
    from tftui.agents.scripted import ScriptedRunner

    flow = tmp_path / "ap.json"
    flow.write_text('{"name": "ap", "phases": [{"id": "draft", "task": "Write."},'
                    ' {"id": "ok", "type": "approval", "dependsOn": ["draft"], "task": "Ship the draft?"}]}')
    long_output = "\n".join(f"line {i}" for i in range(30))
    app = h.make_app(flow, runner=ScriptedRunner({"draft": [long_output]}))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause()
        screen = app.screen
        for selector in ("#approve", "#reject", "#approval-note", ".modal-title"):
            widget = screen.query_one(selector)
            region = widget.region
            assert region.height > 0 and region.bottom <= 24, selector
            hit, _ = screen.get_widget_at(region.x + 1, region.y + region.height // 2)
            assert hit is widget or widget in hit.ancestors, selector
        await pilot.press("ctrl+o")
        await h.run_to_end(pilot, app)
        assert app.state.status == "completed"


async def test_answer_box_and_hint_fit_at_80x24_with_a_long_prompt(h, tmp_path):
    import json

    flow = tmp_path / "lp.json"
    flow.write_text(json.dumps({"name": "lp", "phases": [{"id": "a", "task": "\n".join(f"req {i}" for i in range(40))}]}))
    app = h.make_human_app(flow)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await h.settle(pilot, lambda: isinstance(app.screen, AnswerScreen))
        await pilot.pause()
        screen = app.screen
        for selector in ("#answer-text", ".modal-hint", ".modal-title"):
            widget = screen.query_one(selector)
            region = widget.region
            assert region.height > 0 and region.bottom <= 24, selector
            hit, _ = screen.get_widget_at(region.x + 1, region.y + region.height // 2)
            assert hit is widget or widget in hit.ancestors, selector
        screen.query_one(TextArea).insert("done")
        await pilot.press("ctrl+s")
        await h.run_to_end(pilot, app)
        assert app.state.phases["a"].output == "done"
