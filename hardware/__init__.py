"""GPIO buttons and lamps behind an injected gpiozero pin factory, and the self-test.

Not built yet (issue 4). Devices here never decide who answers: they stamp
edges with the pin factory's timestamp and hand them to the controller.
"""
