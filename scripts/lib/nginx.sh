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

# A gRPC method nginx answers without a gRPC server, in the nginx config $1/nginx.conf (written
# by write_nginx_conf with http2): POST /shop.Carts/Get gets 200, content-type
# application/grpc, one empty message (5 bytes) and the trailer grpc-status 0. nginx refuses a
# POST to a file (405); error_page turns that into the file's 200 (as a GET). Beside it:
# $1/get.bin, a shop.GetRequest {user: "user0001", count: 7} with its gRPC prefix.
write_grpc() {
  printf '\x00\x00\x00\x00\x00' >"$1/grpc-empty"
  printf '\x00\x00\x00\x00\x0c\x0a\x08user0001\x10\x07' >"$1/get.bin"
  sed -i "/^    location \/ {/i\\
    location = /shop.Carts/Get { alias $1/grpc-empty; default_type application/grpc; add_trailer grpc-status 0; error_page 405 =200 \$uri; }" "$1/nginx.conf"
}

# The shop of the flows benchmark in the nginx config $1/nginx.conf (written by
# write_nginx_conf): /login answers a token and sets a session cookie, /cart an item, /order
# 201. Beside it: $1/shop.yaml (the flow), $1/shop.targets with its bodies (the same three
# requests fixed, with the headers in shop_headers), $1/shop.lua (the flow for wrk).
write_shop() {
  local token=tok-0123456789abcdef cookie=session=s-0123456789
  sed -i "/^    location \/ {/i\\
    location = /login { default_type application/json; add_header Set-Cookie \"$cookie; Path=/; HttpOnly\"; return 200 '{\"token\":\"$token\",\"user\":\"user1\"}'; }\\
    location = /cart { default_type application/json; return 200 '{\"user\":\"user1\",\"items\":[{\"id\":\"item-42\"},{\"id\":\"item-7\"}]}'; }\\
    location = /order { default_type application/json; return 201 '{\"order\":\"o-1\"}'; }" "$1/nginx.conf"
  cat >"$1/shop.yaml" <<FLOW
flow:
  - name: login
    request: POST http://127.0.0.1:8080/login
    headers: {Content-Type: application/json}
    body: '{"user":"user1","pass":"pw"}'
    expect: {status: 200}
    extract: {token: 'json:/token'}
  - name: cart
    request: GET http://127.0.0.1:8080/cart
    headers: {Authorization: 'Bearer {token}'}
    expect: {status: 200, body_contains: '"items"'}
    extract: {item: 'json:/items/0/id'}
  - name: order
    request: POST http://127.0.0.1:8080/order
    body: '{"item":"{item}"}'
    expect: {status: 201}
FLOW
  printf '{"user":"user1","pass":"pw"}' >"$1/login.json"
  printf '{"item":"item-42"}' >"$1/order.json"
  printf '%s\n' "POST http://127.0.0.1:8080/login @login.json" "GET http://127.0.0.1:8080/cart" \
    "POST http://127.0.0.1:8080/order @order.json" >"$1/shop.targets"
  # shellcheck disable=SC2034  # For the script that sources this.
  shop_headers=(-H "Content-Type: application/json" -H "Authorization: Bearer $token"
    -H "Cookie: $cookie")
  cat >"$1/shop.lua" <<'LUA'
-- The shop flow in wrk's Lua: request() cycles through the steps, response() takes the token,
-- the item and the cookie out of each answer with Lua patterns. wrk calls both per thread,
-- not per connection: the values are the thread's.
local step, token, item, cookie = 0, "", "", ""
request = function()
  step = step % 3 + 1
  if step == 1 then
    return wrk.format("POST", "/login", {["Content-Type"] = "application/json"},
                      '{"user":"user1","pass":"pw"}')
  elseif step == 2 then
    return wrk.format("GET", "/cart", {["Authorization"] = "Bearer " .. token, ["Cookie"] = cookie})
  end
  return wrk.format("POST", "/order", {["Cookie"] = cookie}, '{"item":"' .. item .. '"}')
end
response = function(status, headers, body)
  local t = body:match('"token":"([^"]+)"')
  if t then token = t end
  local i = body:match('"items":%[{"id":"([^"]+)"')
  if i then item = i end
  local c = headers["Set-Cookie"]
  if c then cookie = c:match("^([^;]+)") end
end
LUA
}
