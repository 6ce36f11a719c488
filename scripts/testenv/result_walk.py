"""Walking what a cookbook function returned, for the check scripts."""


def at(doc, path):
    """The value at a dotted path of a document, None where it stops."""
    for part in path.split("."):
        if not isinstance(doc, dict):
            return None
        doc = doc.get(part)
    return doc


def ids_in(value, out):
    """Every `_id` anywhere in an operation's result."""
    if isinstance(value, dict):
        if "_id" in value:
            out.add(value["_id"])
        for v in value.values():
            ids_in(v, out)
    elif isinstance(value, list):
        for v in value:
            ids_in(v, out)
    return out
