// Harness module: see README.md for what it holds.
