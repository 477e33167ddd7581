"""osf-tmux: which of my AI coding agents in tmux needs me right now?"""

__version__ = "0.1.0"
