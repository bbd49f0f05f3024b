// Hemocytometer module: see README.md for what it holds.
