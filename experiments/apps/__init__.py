"""Programs for people: watching, replaying and playing games.

- :mod:`.demo`: ``carioca demo``, a short game printed turn by turn;
- :mod:`.play`: ``carioca play``, play the bots in the terminal;
- :mod:`.replay`: ``carioca replay``, replay and check a saved record;
- :mod:`.serve`: ``carioca serve``, the browser viewer and table;
- :mod:`.textview`: the terminal rendering that ``play`` and ``replay`` share.
"""
