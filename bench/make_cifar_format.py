"""Writes a CIFAR-10-format archive (cifar-10-binary.tar.gz layout: cifar-10-batches-bin/ with
data_batch_1..5.bin, test_batch.bin, batches.meta.txt; each record 1 label byte + 3072 pixel bytes)
of random images, for throughput runs on machines that cannot download CIFAR-10 (the device
machine reaches no network). Content does not change a step's speed; the format and size match.

  python3 bench/make_cifar_format.py OUT.tar.gz [--train 50000] [--test 10000] [--seed 0]
"""
import argparse
import io
import random
import tarfile

CLASSES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]


def batch(n: int, rng: random.Random) -> bytes:
    out = bytearray()
    for _ in range(n):
        out.append(rng.randrange(10))
        out += rng.randbytes(3072)
    return bytes(out)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--train", type=int, default=50000)
    p.add_argument("--test", type=int, default=10000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    if a.train % 5 != 0:
        raise SystemExit("--train must be a multiple of 5 (five data batches)")
    rng = random.Random(a.seed)
    files = {f"data_batch_{i}.bin": batch(a.train // 5, rng) for i in range(1, 6)}
    files["test_batch.bin"] = batch(a.test, rng)
    files["batches.meta.txt"] = ("\n".join(CLASSES) + "\n\n").encode()
    with tarfile.open(a.out, "w:gz", compresslevel=1) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"cifar-10-batches-bin/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    main()
