"""How a streamed answer is read (tftui/agents/openai.py): its lines, whatever the chunking, and
a pause only after a chunk that took a socket read, so a slow stream of small pieces is read a
few times a second, never one piece at a time, and pieces already read are never held back."""

from __future__ import annotations

import asyncio

from tftui.agents.openai import _lines, _paced, _sse_data


async def _chunks(*parts: bytes):
    for part in parts:
        yield part


async def _collect(source) -> list:
    return [item async for item in source]


async def test_lines_whatever_the_chunks_and_line_ends():
    text = "data: héllo\r\ndata: wörld\r\rdata: x\n\ndata: end"
    raw = text.encode()
    whole = await _collect(_lines(_chunks(raw)))
    assert whole == ["data: héllo", "data: wörld", "", "data: x", "", "data: end"]
    for cut in range(1, len(raw)):  # every split point: inside `\r\n`, inside a two-byte letter
        assert await _collect(_lines(_chunks(raw[:cut], raw[cut:]))) == whole, cut


async def test_a_data_line_split_inside_its_crlf_stays_one_event():
    events = await _collect(_sse_data(_lines(_chunks(b"data: a\r", b"\ndata: b\r\n\r\n"))))
    assert events == ["a\nb"]


async def test_pause_only_after_a_chunk_that_took_a_read():
    async def network():
        yield b"one"  # already read: handed on at once
        yield b"two"
        await asyncio.sleep(0)  # the next one waits for the socket
        yield b"three"
        yield b"four"  # came in the same read

    pauses: list[str] = []
    got: list[bytes] = []

    async def sleep(_seconds: float) -> None:
        pauses.append(got[-1].decode())

    async for chunk in _paced(network(), 0.02, sleep=sleep):
        got.append(chunk)
    assert got == [b"one", b"two", b"three", b"four"]
    assert pauses == ["three"]
