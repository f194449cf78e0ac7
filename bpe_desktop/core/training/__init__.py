"""Learning merges: the incremental trainer and its pair index, the naive trainer that defines it, and
branching (replaying the first k merges, then training on).

No counting of corpora (:mod:`..counting`) and no judging of results (:mod:`..measure`).
"""
