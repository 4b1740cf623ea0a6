"""The Raspberry Pi Pico firmware, its wire protocol and the host-side serial link."""
