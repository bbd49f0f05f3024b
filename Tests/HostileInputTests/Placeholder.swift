// Hostile-input corpus tests; filled in below.
