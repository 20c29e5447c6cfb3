"""The reranker's architecture, shared by train.py and export.py.

A cross-encoder: the request and the command card are encoded together
("[CLS] request [SEP] card [SEP]", every token attending to both), then
the request's tokens and the card's tokens are mean-pooled apart and the
score is a scaled cosine of the two. Starting from all-MiniLM-L6-v2, a
bi-encoder trained for exactly that cosine, the untrained model already
ranks sensibly (a classification head on [CLS] starts from nothing and
needed far more steps than two cores give: issue #32's feasibility runs).

The BERT token types are all zero (the embedder never saw type 1); the
segment ids only tell the pooling which tokens are the card's. The word
embedding table is frozen in training (a file to ship could leave it out
and take it from the embedder's own weights).

Measured (BENCHMARKS.md, issue #32): it starts at 24.7 % hit@1 reranking
learned mode's top 10 on the dev slice, and training collapses it (every
pair scores alike, 8.2 % after 300 steps): not good enough to ship.
"""
import torch
import torch.nn.functional as F
from transformers import AutoConfig, AutoModel


class SegmentCosine(torch.nn.Module):
    def __init__(self, src, layers):
        super().__init__()
        cfg = AutoConfig.from_pretrained(src, num_hidden_layers=layers)
        self.bert = AutoModel.from_pretrained(src, config=cfg, add_pooling_layer=False)
        self.scale = torch.nn.Parameter(torch.tensor(20.0))
        self.bias = torch.nn.Parameter(torch.tensor(-10.0))

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                      token_type_ids=torch.zeros_like(token_type_ids)).last_hidden_state
        mask = attention_mask.to(h.dtype)
        card = token_type_ids.to(h.dtype)
        qm = (mask * (1 - card)).unsqueeze(-1)
        cm = (mask * card).unsqueeze(-1)
        q = F.normalize((h * qm).sum(1) / qm.sum(1).clamp(min=1), dim=-1)
        c = F.normalize((h * cm).sum(1) / cm.sum(1).clamp(min=1), dim=-1)
        return (self.scale * (q * c).sum(-1) + self.bias).unsqueeze(-1)


def mean_pooled(model, tok, texts, max_len):
    """all-MiniLM-L6-v2's sentence vectors of texts by model (a
    transformers AutoModel): mean over the attention mask, unit length; a
    tensor, with gradients when the caller wants them."""
    e = tok(texts, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
    h = model(**e).last_hidden_state
    m = e["attention_mask"].unsqueeze(-1).to(h.dtype)
    return F.normalize((h * m).sum(1) / m.sum(1).clamp(min=1e-9), dim=-1)


def embed_all(model, tok, texts, max_len, batch=64):
    """mean_pooled of many texts, in batches, without gradients: numpy."""
    with torch.no_grad():
        return torch.cat([mean_pooled(model, tok, texts[i:i + batch], max_len)
                          for i in range(0, len(texts), batch)]).numpy()
