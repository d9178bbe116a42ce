#!/usr/bin/env python3
# Usage: python3 .ci/complete-lockfile.py package-lock.json   (after any npm install)
# Adds lockfile entries for optional platform packages the registry here does not serve, so
# `npm ci` accepts the lockfile; npm skips them by their os/cpu/libc fields on install.
import json,sys,re
p=sys.argv[1]
lock=json.load(open(p)); pk=lock['packages']
def plat(n):
    n=n.split('/')[-1]
    os_=next((o for o in ['darwin','win32','linux','android','freebsd'] if f'-{o}-' in n+'-'),None)
    cpu=next((c for c in ['arm64','x64','arm','riscv64','ia32'] if re.search(rf'-{c}(-|$)',n)),None)
    libc=['musl'] if 'musl' in n else (['glibc'] if os_=='linux' and n.endswith('-gnu') else None)
    return os_,cpu,libc
added=0
for path,entry in list(pk.items()):
    for name,ver in entry.get('optionalDependencies',{}).items():
        ver=re.sub(r'^[\^~]','',ver)
        chain=path
        found=False
        while True:
            cand=(chain+'/node_modules/'+name) if chain else 'node_modules/'+name
            if cand in pk:
                found = pk[cand].get('version')==ver
                break
            if not chain: break
            i=chain.rfind('/node_modules/')
            chain=chain[:i] if i>=0 else ''
        if found: continue
        # Beside the package that wants it, where npm would have put it.
        i=path.rfind('/node_modules/')
        target=(path[:i]+'/node_modules/'+name) if i>=0 else 'node_modules/'+name
        if target in pk: continue
        os_,cpu,libc=plat(name)
        e={'version':ver,'optional':True}
        if cpu: e['cpu']=[cpu]
        if os_: e['os']=[os_]
        if libc: e['libc']=libc
        pk[target]=e; added+=1
        print(target,ver)
lock['packages']=dict(sorted(pk.items(),key=lambda kv:(kv[0]!='',kv[0])))
json.dump(lock,open(p,'w'),indent=2); open(p,'a').write('\n')
print('added',added)
