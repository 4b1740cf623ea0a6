"""The host's tablet panel: a FastAPI app over the controller, live over a WebSocket.

``buzzer.panel.app.create_app(controller, pin)`` builds the app; ``svoyak run
--headless`` (``buzzer.app.run_command``) serves it over a demo game. This
module imports nothing heavy: the CLI imports ``buzzer.app.run_command`` at
start-up, and FastAPI is loaded only when the panel is actually served.
"""
