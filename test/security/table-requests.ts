/**
 * A DynamoDB client that records every request it passes on (its IAM action and the partition
 * keys it names), and the check of those requests against a function's table grants
 * (infra/table-grants.ts), as IAM applies them: a request is allowed when one statement has its
 * action and `dynamodb:LeadingKeys` patterns that every one of its partition keys matches.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TableGrant } from '../../infra/table-grants.js';

export interface TableRequest {
  /** The IAM action, `dynamodb:GetItem`. */
  action: string;
  /** Every partition key the request names (a batch names many). */
  pks: string[];
  /** The attributes a single-item write names (key, update and condition expressions), for `dynamodb:Attributes`. */
  attributes?: string[];
}

type Keyed = { pk?: { S?: string }; sk?: { S?: string } };
export interface Input {
  Key?: Keyed;
  Item?: Keyed;
  // A Query names its partition in the key condition (`pk = :pk`).
  ExpressionAttributeValues?: { ':pk'?: { S?: string } };
  RequestItems?: Record<
    string,
    { Keys?: Keyed[] } | Array<{ PutRequest?: { Item?: Keyed }; DeleteRequest?: { Key?: Keyed } }>
  >;
  TransactItems?: Array<Record<string, { Key?: Keyed; Item?: Keyed }>>;
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
}

/** Words of the expression grammar that are not attribute names. */
const EXPRESSION_WORDS = new Set(
  'set remove add delete and or not in between attribute_exists attribute_not_exists attribute_type begins_with contains size if_not_exists list_append'.split(
    ' ',
  ),
);

/** The top-level attribute names a request's key and expressions name (`#n` placeholders resolved). */
function attributeNames(input: Input): string[] | undefined {
  if (input.UpdateExpression === undefined && input.ConditionExpression === undefined) return undefined;
  const names = new Set(Object.keys(input.Key ?? input.Item ?? {}));
  const text = `${input.UpdateExpression ?? ''} ${input.ConditionExpression ?? ''}`;
  for (const [token] of text.matchAll(/[#:]?[A-Za-z_][A-Za-z0-9_]*/g)) {
    if (token.startsWith(':') || EXPRESSION_WORDS.has(token.toLowerCase())) continue;
    names.add(token.startsWith('#') ? (input.ExpressionAttributeNames?.[token] ?? token) : token);
  }
  return [...names];
}

function partitionKeys(input: Input): string[] {
  const named: Array<Keyed | undefined> = [input.Key, input.Item];
  for (const request of Object.values(input.RequestItems ?? {})) {
    if (Array.isArray(request)) {
      for (const write of request) named.push(write.PutRequest?.Item, write.DeleteRequest?.Key);
    } else {
      named.push(...(request.Keys ?? []));
    }
  }
  for (const item of input.TransactItems ?? []) {
    for (const op of Object.values(item)) named.push(op.Key, op.Item);
  }
  const pks = named.flatMap((k) => (k?.pk?.S === undefined ? [] : [k.pk.S]));
  const queried = input.ExpressionAttributeValues?.[':pk']?.S;
  if (queried !== undefined && pks.length === 0) pks.push(queried);
  // A request that names no partition (a Scan) cannot be limited by LeadingKeys: it shows as such.
  return pks.length > 0 ? pks : [`(no key: ${JSON.stringify(input)})`];
}

/**
 * `real`, with every request recorded in `requests`. `before` runs ahead of each request, to
 * play what another process does between two of the function's requests (the races its code handles).
 */
export function recordingClient(
  real: Pick<DynamoDBClient, 'send'>,
  requests: TableRequest[],
  before?: (request: TableRequest, input: Input) => Promise<void>,
): Pick<DynamoDBClient, 'send'> {
  return {
    async send(command: { input: Input; constructor: { name: string } }) {
      const action = `dynamodb:${command.constructor.name.replace(/Command$/, '')}`;
      const attributes = attributeNames(command.input);
      const request: TableRequest = {
        action,
        pks: partitionKeys(command.input),
        ...(attributes ? { attributes } : {}),
      };
      requests.push(request);
      await before?.(request, command.input);
      return real.send(command as never);
    },
  } as unknown as Pick<DynamoDBClient, 'send'>;
}

/** IAM's StringLike: `*` any run of characters, `?` any one. */
export function likePattern(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
}

const covers = (grant: TableGrant, request: TableRequest) =>
  grant.actions.includes(request.action) &&
  request.pks.every((pk) => grant.partitionKeys.some((p) => likePattern(p).test(pk))) &&
  // IAM's ForAllValues:StringEquals on dynamodb:Attributes: every attribute named is listed.
  (grant.attributes === undefined ||
    (request.attributes ?? []).every((name) => grant.attributes?.includes(name)));

/** The requests no single grant allows, each once, as `action pk,pk`. */
export function refused(requests: TableRequest[], grants: readonly TableGrant[]): string[] {
  const out = requests
    .filter((r) => !grants.some((g) => covers(g, r)))
    .map(
      (r) =>
        `${r.action} ${[...new Set(r.pks)].sort().join(',')}${r.attributes ? ` [${[...r.attributes].sort().join(',')}]` : ''}`,
    );
  return [...new Set(out)].sort();
}

/**
 * Each grant's action and partition pattern that no request used, as `action pattern`: an
 * entry here is either more than the function needs or a path the test does not drive.
 */
export function unused(requests: TableRequest[], grants: readonly TableGrant[]): string[] {
  const out: string[] = [];
  for (const grant of grants) {
    for (const action of grant.actions) {
      for (const pattern of grant.partitionKeys) {
        const re = likePattern(pattern);
        const used = requests.some(
          (r) => covers(grant, r) && r.action === action && r.pks.some((pk) => re.test(pk)),
        );
        if (!used) out.push(`${action} ${pattern}`);
      }
    }
  }
  return out.sort();
}
