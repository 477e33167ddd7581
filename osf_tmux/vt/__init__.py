"""The screen step: one terminal emulator per pane, rendering what tmux renders.

`stream` parses bytes (after tmux's input.c), `screen` applies them to a `grid` the way tmux's
screen-write.c does, `resize` reflows like tmux's screen_resize, `width` gives tmux's character
widths; `pane.PaneScreen` wraps it all and hands out an immutable `snapshot.Snapshot`.

May import: the standard library and wcwidth only. Only this package knows escape sequences."""
