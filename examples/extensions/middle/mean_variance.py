"""Multi-output pattern example: a mean and a variance computed from the same tensor in two
passes (mean = E[x], var = E[(x - mean)^2]) are rewritten to read x once more only through the
second moment: var = E[x*x] - mean*mean. Both outputs are matched together: the pattern has two
roots that share the variable x and the mean."""
from mo.pipeline.pattern import MultiOutputPatternRewrite


class MeanVarianceOnePass(MultiOutputPatternRewrite):
    def pattern(self, p):
        x = p.var("x")
        mean = p.ReduceMean(x, p.const("axes"), keep_dims=True)
        centered = p.Subtract(x, mean)
        var = p.ReduceMean(p.Multiply(centered, centered), p.const("axes2"), keep_dims=True)
        return {"mean": mean, "var": var}

    def condition(self, m):
        return list(m["axes"].reshape(-1)) == list(m["axes2"].reshape(-1))

    def replacement(self, b, m):
        x = m["x"]
        mean = m.roots["mean"].out_port(0)            # the mean is kept as it is
        second = b.ReduceMean(b.Multiply(x, x), m.ports["axes"], keep_dims=True)
        return {"mean": None, "var": b.Subtract(second, b.Multiply(mean, mean))}
