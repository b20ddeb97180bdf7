"""How run facts are shown: status words and glyphs, number formats, event lines, view models.

One table per fact, shared by the debugger and the headless commands (`tftui run`, `runs`,
`replay --print`, reports), so the same status always reads the same. Textual-free: this
package may use rich, never textual, and it decides no semantics (it reads engine values).
"""
