"""The fleet's tests reach a private sshd (tests/support/sshd.py)."""

from tests.support.sshd import sshd

__all__ = ["sshd"]
