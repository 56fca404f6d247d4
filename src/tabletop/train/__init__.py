"""Training jobs at scale: self-play data, the Gomoku evaluation's games and both opening books'
searches, made in shards through one runner (:mod:`tabletop.train.runner`) on local processes or a
Ray cluster.  The games and searches themselves are in ``ai/``; this layer splits them into shards,
stores and reads them.  Nothing here is imported by the engines or the server.
"""
