"""Helpers the tests share: rigs, fixtures, strategies (not tests themselves)."""
