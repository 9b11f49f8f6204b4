# m44d container image. Provided for deployment; the test suite does not build or run it
# (no Docker engine on the test machines). Keep it in step with the Makefile and scripts/deps.sh.

FROM debian:bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends make gcc libc6-dev \
      libmicrohttpd-dev libjansson-dev libpq-dev libsodium-dev libcurl4-openssl-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN make -j"$(nproc)" all

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 libjansson4 libpq5 libsodium23 libcurl4 \
      ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10044 --no-create-home --shell /usr/sbin/nologin m44d
COPY --from=build /src/bin/ /usr/local/bin/
USER m44d
# Inside a container the daemon must listen on all interfaces to be reachable.
ENV M44_LISTEN=0.0.0.0:8044
EXPOSE 8044
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8044/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/m44d"]
