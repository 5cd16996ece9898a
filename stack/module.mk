# stack/: see the header comments of its files.
