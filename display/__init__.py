"""The pygame board screen, podium lamps, timers and sounds (issue 6).

It renders state snapshots and never decides anything.
"""
