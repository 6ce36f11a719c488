"""Which of the features squill's generated code relies on the test server
gets right (issue 41): a 2dsphere index with an equality key first, `$near`
with a limit (the nearest first), a `$geoNear` stage, and `findOneAndUpdate`
with a sort on a partial index. Prints one line per feature, `yes` or `NO`
with what it saw. TTL deletion is not probed here, where it would hold the
probe up for a minute: the test
`artifacts::ttl_tests::generated_ttl_indexes_delete_expired_documents_against_a_server`
creates the TTL indexes as `generate` writes them and waits for the
server's monitor to delete the expired documents (check_ttl.py).

    scripts/testenv/server.sh's environment, then:
    SQUILL_TEST_MONGODB_URI=mongodb://… python probe_server_features.py
"""

import math
import os

import pymongo

CENTRE = [2.35, 48.85]


def distance(doc):
    """Planar distance in degrees from CENTRE, longitude scaled by latitude:
    enough to order points a few km apart."""
    x, y = doc["loc"]["coordinates"]
    return math.hypot((x - CENTRE[0]) * math.cos(math.radians(CENTRE[1])), y - CENTRE[1])


def say(feature, ok, seen):
    print(f"{feature}: {'yes' if ok else 'NO'} ({seen})")


def main():
    db = pymongo.MongoClient(os.environ["SQUILL_TEST_MONGODB_URI"])["squill_probe_features"]
    db.drop_collection("places")
    db.drop_collection("jobs")
    # 60 points on a spiral around CENTRE, at most 3.3 km away, half open.
    places = []
    for i in range(60):
        angle, radius = i * 2.4, 0.0005 * ((i * 7919) % 60 + 1)
        point = [CENTRE[0] + radius * math.cos(angle), CENTRE[1] + radius * math.sin(angle)]
        places.append({"_id": i, "open": i % 2 == 0, "loc": {"type": "Point", "coordinates": point}})
    db.places.insert_many(places)
    db.places.create_index([("open", 1), ("loc", "2dsphere")])
    nearest = [d["_id"] for d in sorted((d for d in places if d["open"]), key=distance)[:10]]
    here = {"type": "Point", "coordinates": CENTRE}

    got = list(db.places.find({"open": True, "loc": {"$near": {"$geometry": here, "$maxDistance": 5000}}}).limit(10))
    say("$near, limit 10, nearest first", [d["_id"] for d in got] == nearest, f"{[d['_id'] for d in got]} against {nearest}")

    stage = {"near": here, "distanceField": "d", "key": "loc", "query": {"open": True}, "maxDistance": 5000}
    got = list(db.places.aggregate([{"$geoNear": stage}, {"$limit": 10}]))
    say("$geoNear, limit 10, nearest first", [d["_id"] for d in got] == nearest, f"{[d['_id'] for d in got]} against {nearest}")

    jobs = [{"_id": i, "status": ["pending", "running"][i % 2], "priority": i % 5 + 1, "created_at": 1000 - i} for i in range(40)]
    db.jobs.insert_many(jobs)
    db.jobs.create_index([("status", 1), ("priority", -1), ("created_at", 1)], partialFilterExpression={"status": "pending"})
    want = min((d for d in jobs if d["status"] == "pending"), key=lambda d: (-d["priority"], d["created_at"]))["_id"]
    got = db.jobs.find_one_and_update(
        {"status": "pending"},
        {"$set": {"status": "running"}},
        sort=[("priority", -1), ("created_at", 1)],
        return_document=pymongo.ReturnDocument.AFTER,
    )
    say("findOneAndUpdate with a sort", got is not None and got["_id"] == want and got["status"] == "running", f"took {got and got['_id']}, the first by the sort is {want}")
    db.client.drop_database(db.name)


if __name__ == "__main__":
    main()
