"""The deterministic SQLite databases Depot's delta benchmarks share: a product catalog of
~50 MB at 130,000 rows (scripts/bench-delta, scripts/bench-reach)."""

import random, sqlite3


def vocabulary(seed=7, count=6000):
    r = random.Random(seed)
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    weights = [12, 9, 8, 7.5, 7, 6.7, 6.3, 6, 5.9, 4.3, 4, 2.8, 2.8, 2.4, 2.4, 2.2, 2, 2, 1.9, 1.5, 1, 0.8, 0.15, 0.15, 0.1, 0.07]
    return ["".join(r.choices(letters, weights, k=r.randint(3, 10))) for _ in range(count)]


def make_catalog(path, rows):
    r = random.Random(1)
    words = vocabulary()
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE product (id INTEGER PRIMARY KEY, sku TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,"
               " category INTEGER NOT NULL, price INTEGER NOT NULL, stock INTEGER NOT NULL, updated TEXT NOT NULL)")
    db.execute("CREATE INDEX product_sku ON product(sku)")
    db.execute("CREATE INDEX product_name ON product(name)")
    db.execute("CREATE INDEX product_category ON product(category, price)")

    def row(i):
        return (i, f"SKU-{r.randrange(10**8):08d}", " ".join(r.choices(words, k=r.randint(2, 5))).title(),
                " ".join(r.choices(words, k=r.randint(15, 45))), r.randrange(400), r.randrange(100, 100000), r.randrange(1000),
                f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randrange(24):02d}:{r.randrange(60):02d}:00Z")

    db.executemany("INSERT INTO product VALUES (?,?,?,?,?,?,?,?)", (row(i) for i in range(1, rows + 1)))
    db.commit()
    db.close()


def update_rows(path, rows, fraction, seed, stamp):
    """Rewrites the price, stock and date of `fraction` of the catalog's rows in place, as a
    release or an app does."""
    r = random.Random(seed)
    db = sqlite3.connect(path)
    for i in r.sample(range(1, rows + 1), int(rows * fraction)):
        db.execute("UPDATE product SET price = ?, stock = ?, updated = ? WHERE id = ?", (r.randrange(100, 100000), r.randrange(1000), stamp, i))
    db.commit()
    db.close()
