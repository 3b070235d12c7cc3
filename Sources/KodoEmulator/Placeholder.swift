// The emulator library.
