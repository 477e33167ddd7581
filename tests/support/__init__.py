"""What the tests share: private tmux servers, a daemon under test, recorders and oracles."""
