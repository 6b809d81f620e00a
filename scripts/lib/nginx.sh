# shellcheck shell=bash
# nginx as a test and benchmark server (sourced by scripts; nginx from Debian).

# Writes an nginx config to $1/nginx.conf: one worker, no logs, that listens on 127.0.0.1:$2
# ($2 may be ADDRESS:PORT instead, e.g. inside a network namespace of the laboratory)
# (with TLS when $3 names a folder holding cert.pem and key.pem) and answers every request with
# 200 and the body $4 (default "hello from nginx"); /bytes/NAME serves the file $1/bytes/NAME.
# $5 = http2: HTTP/2 on the port (by ALPN beside HTTP/1.1 with TLS, else h2c only).
# multi_accept: a busy worker otherwise accepts one connection per event loop pass, and at
# c=10,000 most connections then waited the whole run for their first answer (p99 9.8 s), so
# few were really served (docs/performance.md).
write_nginx_conf() {
  local ssl="" ssl_files="" http2="" listen=$2
  [[ $listen == *:* ]] || listen=127.0.0.1:$listen
  [ "${5:-}" != http2 ] || http2=" http2"
  if [ -n "${3:-}" ]; then
    ssl=" ssl"
    ssl_files="ssl_certificate $3/cert.pem; ssl_certificate_key $3/key.pem; ssl_protocols TLSv1.2 TLSv1.3;"
  fi
  cat >"$1/nginx.conf" <<CONF
worker_processes 1;
daemon off;
master_process off;
worker_rlimit_nofile 20000;
error_log stderr error;
pid $1/nginx.pid;
events { worker_connections 20000; multi_accept on; }
http {
  access_log off;
  client_body_temp_path $1; proxy_temp_path $1; fastcgi_temp_path $1;
  uwsgi_temp_path $1; scgi_temp_path $1;
  keepalive_requests 100000000;
  server {
    listen $listen$ssl$http2 backlog=65535;
    $ssl_files
    location / { default_type text/plain; return 200 "${4:-hello from nginx}"; }
    location /bytes/ { alias $1/bytes/; }
  }
}
CONF
}
