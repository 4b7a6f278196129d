# One image for every planwire service: `docker run planwire:TAG <service> [args]`, e.g.
# `planwire:TAG specialist gmail`. Built in two stages so the final image holds the
# installed virtualenv and nothing that built it.
#
# Lean and pinned: the dependencies come from requirements/image.lock (every version pinned,
# every file hash-checked; `bash scripts/lock.sh` regenerates it), which holds neither the
# embedded broker and Valkey (`planwire[embedded]`) nor llama.cpp (`planwire[local-model]`):
# in production every service reaches a real Kafka and Redis and calls the model over HTTP.

# ---- build: wheel of planwire, then a virtualenv with it and its dependencies ----------
FROM python:3.11.13-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
# Only what the wheel is built from (.dockerignore keeps everything else out of the context).
COPY pyproject.toml ./
COPY requirements/image.lock ./requirements/image.lock
COPY planwire ./planwire
COPY schemas ./schemas
COPY state ./state
COPY shared ./shared
COPY services ./services
COPY catalog ./catalog
# The locked dependencies first (hash-checked), then planwire itself without resolving
# anything more. Wheels wherever they exist; recurrent publishes only an sdist (pure
# Python), so sources are allowed, and the slim base has no compiler: a dependency that
# suddenly needs one fails the build rather than growing the image.
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /dist . \
 && python -m venv /opt/planwire \
 && /opt/planwire/bin/pip install --no-cache-dir --prefer-binary --require-hashes -r requirements/image.lock \
 && /opt/planwire/bin/pip install --no-cache-dir --no-deps /dist/planwire-*.whl

# ---- runtime: the virtualenv on a clean slim base, as a non-root user --------------------
FROM python:3.11.13-slim-bookworm
ENV PATH=/opt/planwire/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PLANWIRE_HTTP_HOST=0.0.0.0 \
    PLANWIRE_HTTP_PORT=8000 \
    PLANWIRE_METRICS_PORT=9464
RUN groupadd --system --gid 10001 planwire \
 && useradd --system --uid 10001 --gid planwire --no-create-home --shell /usr/sbin/nologin planwire
COPY --from=build /opt/planwire /opt/planwire
WORKDIR /home/planwire
# Numeric, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
USER 10001:10001
EXPOSE 8000
# /ready answers 204 only while the broker and Redis answer (urlopen raises otherwise).
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request as u; u.urlopen('http://127.0.0.1:%s/ready' % os.environ.get('PLANWIRE_HTTP_PORT', '8000'), timeout=6)"]
ENTRYPOINT ["planwire", "run"]
CMD ["gateway"]
